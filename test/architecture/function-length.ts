// How long each function is, read with the TypeScript compiler's own parser (a regex cannot find where a function
// ends). Pure: a file's text in, its outermost functions out; a closure counts toward the function it is written in.
import ts from 'typescript';

export interface FunctionSpan {
  name: string;
  /** From the line the function starts on to the line of its closing brace, both included. */
  lines: number;
}

export function functionSpans(file: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ name: nameOf(node), lines: end - start + 1 });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name !== undefined && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}
