// A zod issue in karp-drift's words, for the schemas that check what people write (flags, --amis-file, templates,
// sandbox scenarios): zod's own messages ("Too small: expected string to have >=1 characters") name its internals,
// not the field. Passed as the parse's error map (`safeParse(data, { error: issueWords })`), so a message a schema
// spells out itself still wins; the caller puts the flag or field path in front.
import type * as z from 'zod';

const article = (word: string): string => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;

/** `a string`, `a list`, `a mapping`: what a YAML or JSON author calls the type. */
function typeName(expected: string): string {
  const names: Record<string, string> = { array: 'list', object: 'mapping', int: 'whole number', record: 'mapping' };
  return article(names[expected] ?? expected);
}

function given(input: unknown): string {
  if (input == null) return String(input);
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  if (typeof input === 'string') return `the text ${JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input)}`;
  if (typeof input === 'number') return `the number ${input}`;
  return typeof input === 'boolean' ? `${input}` : `a ${typeof input}`;
}

function bound(origin: string, n: number, inclusive: boolean | undefined, side: 'least' | 'most'): string {
  if (origin === 'string') return `${plain(n, 'character')} at ${side}`;
  if (origin === 'array' || origin === 'set') return `${plain(n, 'item')} at ${side}`;
  if (inclusive === false) return `${side === 'least' ? 'more' : 'less'} than ${n}`;
  return `at ${side} ${n}`;
}

const plain = (n: number, word: string): string => `${n} ${n === 1 ? word : `${word}s`}`;

/** What is wrong with the value, as the end of a sentence that starts with its name: `is empty`, `must be a list, not the text "a"`. */
export function issueWords(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${typeName(issue.expected)}, not ${given(issue.input)}`;
    case 'too_small': {
      const n = Number(issue.minimum);
      if (n === 1 && issue.origin === 'string') return 'is empty';
      if (n === 1 && (issue.origin === 'array' || issue.origin === 'set')) return 'lists nothing';
      return `must be ${bound(issue.origin, n, issue.inclusive, 'least')}`;
    }
    case 'too_big':
      return `must be ${bound(issue.origin, Number(issue.maximum), issue.inclusive, 'most')}`;
    case 'invalid_format':
      return issue.format === 'regex' && issue.pattern ? `is not in the expected form (${issue.pattern})` : `is not a valid ${issue.format}`;
    case 'invalid_value':
      return `must be ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map((v) => String(v)).join(', ')}`}, not ${given(issue.input)}`;
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return `matches none of the accepted forms (${given(issue.input)})`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return 'is not valid';
  }
}
