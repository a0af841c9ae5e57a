/**
 * What a watch keeps between saves: the parsed inputs, and the connectome it built last.
 *
 * A file whose text is what it was at the previous compile is not parsed again: its value is the
 * very object the previous compile read, so the compile's caches keyed by object (a catalog tool's
 * contract key) hold across saves.
 *
 * A value whose objects key such caches is deep-frozen when first kept (`freeze`), so a write to it
 * throws instead of silently making a later recompile differ from a full compile; a part of it that
 * reads as it did before is the part kept before (`shareFrozen`), so those caches hold for what a
 * save left alone even when the file changed elsewhere. The manifest is
 * not frozen (freezing its 200,000 grants costs more than parsing the piece a save changed); the
 * compile never writes to its inputs, which test/unit/compile/frozen-inputs.test.ts holds.
 */
import type { Catalog } from '../catalog/types.ts';
import type { Estate } from '../governance/estate.ts';
import type { ConnectomeArtifacts } from '../compile/connectome-artifacts.ts';
import { connectomeInputsDigest } from '../compile/incremental/connectome-inputs.ts';
import { deepFreeze, shareFrozen } from '../compile/incremental/frozen-inputs.ts';

export class InputMemo {
  private readonly kept = new Map<string, { readonly text: string; readonly value: unknown }>();

  /** `parse(text)`, or the value kept for `path` when its text was the same; `parse` is given the text and value kept before, if any. */
  parsed<T>(path: string, text: string, parse: (text: string, previous?: { readonly text: string; readonly value: T }) => T, options: { freeze?: boolean } = {}): T {
    const k = this.kept.get(path) as { readonly text: string; readonly value: T } | undefined;
    if (k !== undefined && k.text === text) return k.value;
    const value = options.freeze === true ? deepFreeze(shareFrozen(parse(text, k), k?.value)) : parse(text, k);
    this.kept.set(path, { text, value });
    return value;
  }

  /** The value kept for `path` (what its previous text read as), whatever the text is now. */
  previous(path: string): unknown {
    return this.kept.get(path)?.value;
  }

  /** The estate indexed from the previous save's inputs, which the next one starts from (governance/grant-index.ts). */
  estate: Estate | undefined;
}

/**
 * The connectome a watch built last, given again while the host graph is the same text and the
 * catalog is the same object or gives the connectome the same inputs (a changed description or
 * schema does not: src/compile/incremental/connectome-inputs.ts).
 */
export class ConnectomeMemo {
  private kept: { catalog: Catalog; inputs: string; hostGraph: string; value: ConnectomeArtifacts } | undefined;

  get(catalog: Catalog, hostGraph: string): ConnectomeArtifacts | undefined {
    const k = this.kept;
    if (k === undefined || k.hostGraph !== hostGraph) return undefined;
    if (k.catalog !== catalog) {
      if (connectomeInputsDigest(catalog) !== k.inputs) return undefined;
      k.catalog = catalog;
    }
    return k.value;
  }

  set(catalog: Catalog, hostGraph: string, value: ConnectomeArtifacts): void {
    this.kept = { catalog, inputs: connectomeInputsDigest(catalog), hostGraph, value };
  }
}
