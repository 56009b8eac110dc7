// A YAML file as `pin` reads it: eemeli/yaml's Documents, whose nodes keep comments, anchors, quoting and their place
// in the source (`range`), and the paths into them. Aliases and merge keys (`<<: *base`) are followed to the node that
// holds the value, since that node is the one to change. Pure: the command reads the text.
import { isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node, type Pair, type YAMLMap } from 'yaml';

export interface YamlFile {
  path: string;
  text: string;
  /** Every document of the file, `---` separated, in order (an empty document is kept: indexes name documents). */
  docs: Document.Parsed[];
  /**
   * An inline patch of a kustomization (`patch: |-`): not a file of its own but a string in the kustomization, at
   * this node; a change to it is written there (writes.ts `hostEdit`).
   */
  host?: { file: string; doc: number; path: YamlPath };
}

/** A path into a document: map keys and sequence indexes. */
export type YamlPath = ReadonlyArray<string | number>;

/** The file's documents, or why it is not YAML (the parser's first error, with its line and column). */
export function parseYamlFile(path: string, text: string): YamlFile | { error: string } {
  const docs = parseAllDocuments(text, { merge: true, prettyErrors: true, uniqueKeys: true });
  const all = Array.isArray(docs) ? docs : [];
  for (const doc of all) {
    const err = doc.errors[0];
    if (err !== undefined) {
      const at = err.linePos?.[0];
      const where = at !== undefined ? ` (line ${at.line}, column ${at.col})` : '';
      return { error: `${path} is not YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}${where}` };
    }
  }
  return { path, text, docs: all };
}

/** The plain value of a document (aliases and merge keys resolved), as the API server would read it. */
export function docValue(doc: Document.Parsed): unknown {
  return doc.toJS({ maxAliasCount: 1000 }) as unknown;
}

/** The node an alias stands for; any other node as it is. */
export function resolved(doc: Document.Parsed, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

/**
 * The pair that holds `key` in a map: its own, else one a merge key (`<<: *base`, `<<: [*a, *b]`) brings in, the
 * first merged map winning as YAML 1.1 says. Undefined: the key is not there.
 */
export function pairOf(doc: Document.Parsed, map: YAMLMap, key: string): Pair<Node, Node | null> | undefined {
  const own = map.items.find((p) => isScalar(p.key) && p.key.value === key);
  if (own !== undefined) return own as Pair<Node, Node | null>;
  for (const p of map.items) {
    if (!isScalar(p.key) || p.key.value !== '<<') continue;
    const sources = isSeq(p.value) ? p.value.items : [p.value];
    for (const s of sources) {
      const m = resolved(doc, s);
      if (isMap(m)) {
        const found = pairOf(doc, m, key);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}

/** The node at `path` (aliases followed at every step), or undefined where the path leaves the document. */
export function nodeAt(doc: Document.Parsed, path: YamlPath): Node | undefined {
  let node: unknown = resolved(doc, doc.contents);
  for (const step of path) {
    if (typeof step === 'number') {
      if (!isSeq(node)) return undefined;
      node = resolved(doc, node.items[step]);
    } else {
      if (!isMap(node)) return undefined;
      node = resolved(doc, pairOf(doc, node, step)?.value ?? undefined);
    }
    if (node == null) return undefined;
  }
  return node as Node;
}

/** The deepest part of `path` that exists, as `a.b`: for the message about a path that does not. */
export function deepestPrefix(doc: Document.Parsed, path: readonly string[]): { found: string[]; keys: string[] } {
  const found: string[] = [];
  for (const step of path) {
    if (nodeAt(doc, [...found, step]) === undefined) break;
    found.push(step);
  }
  const here = found.length === 0 ? resolved(doc, doc.contents) : nodeAt(doc, found);
  const keys = isMap(here) ? here.items.flatMap((p) => (isScalar(p.key) ? [String(p.key.value)] : [])) : [];
  return { found, keys };
}
