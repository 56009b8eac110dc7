// zod's findings in karp-drift's words: each kind of issue, as the end of a sentence that starts with the field.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { issueWords } from '../../src/text/issues.js';

const words = (schema: z.ZodType, value: unknown): string => {
  const parsed = schema.safeParse(value, { error: issueWords });
  if (parsed.success) throw new Error('expected an issue');
  return parsed.error.issues[0]!.message;
};

describe('issueWords', () => {
  it.each<[string, z.ZodType, unknown, string]>([
    ['missing', z.object({ a: z.string() }), {}, 'is required'],
    ['another type', z.array(z.string()), 'x', 'must be a list, not the text "x"'],
    ['a mapping expected', z.object({}), [1], 'must be a mapping, not a list'],
    ['an empty string', z.string().min(1), '', 'is empty'],
    ['a short string', z.string().min(3), 'ab', 'must be 3 characters at least'],
    ['an empty list', z.array(z.string()).min(1), [], 'lists nothing'],
    ['a number too small', z.number().min(0), -1, 'must be at least 0'],
    ['a number not above', z.number().positive(), 0, 'must be more than 0'],
    ['a number too big', z.number().max(5), 6, 'must be at most 5'],
    ['one of', z.enum(['a', 'b']), 'c', 'must be one of a, b, not the text "c"'],
    ['a pattern', z.string().regex(/^x+$/), 'y', 'is not in the expected form (/^x+$/)'],
    ['an unknown field', z.strictObject({}), { b: 1 }, 'has unknown field b'],
  ])('%s', (_, schema, value, expected) => {
    expect(words(schema, value)).toBe(expected);
  });

  it("a schema's own message wins", () => {
    expect(words(z.string().min(1, 'names no cluster'), '')).toBe('names no cluster');
  });
});
