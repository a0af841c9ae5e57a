/**
 * Library functions that take values, not files, name the value they refuse with a placeholder
 * (`<graph>`, `<diff>`, `<value>`, `<json>`, `<records>`). The caller that read the value from a
 * file puts the file's name back before the error reaches a user.
 */
import { ToolgateError, isToolgateError, type SourceAt } from '../errors.ts';

const PLACEHOLDER = /^<(graph|diff|value|json|records)>$/;

/**
 * The error with each placeholder location renamed: by the location path's first segment when
 * `names` has it (`window` for a diff's window), else to `names.default`. Other errors pass as they are.
 * @example nameSources(err, { declared: 'd.json', window: 'w.json', default: 'd.json' })
 */
export function nameSources(e: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!isToolgateError(e) || !e.at.some((a) => PLACEHOLDER.test(a.file))) return e;
  let message = e.message;
  const at: SourceAt[] = e.at.map((a) => {
    if (!PLACEHOLDER.test(a.file)) return a;
    const head = (a.path ?? '').replace(/^[/$.]+/, '').split(/[./[]/)[0] ?? '';
    const file = names[head] ?? names.default;
    if (file === undefined) return a;
    message = message.split(a.file).join(file);
    return { ...a, file };
  });
  return new ToolgateError(e.code, message, { at, details: e.details, cause: e });
}

/**
 * Where a document's root value starts (its first character that is not JSON whitespace): the
 * location of a fault in the document as a whole, such as a root of the wrong type.
 * @example rootAt('g.json', '\n  []') // { file: 'g.json', line: 2, col: 3, path: '' }
 */
export function rootAt(file: string, text: string): SourceAt {
  const start = text.search(/[^ \t\r\n\ufeff]/);
  const before = text.slice(0, Math.max(0, start)).split('\n');
  return { file, line: before.length, col: before[before.length - 1]!.length + 1, path: '' };
}

/** Runs `f`, naming the sources of any error it throws (see nameSources). */
export function withSourceNames<T>(names: Readonly<Record<string, string>>, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw nameSources(e, names);
  }
}
