/**
 * The HTML report's two whole-estate pictures, laid out in-process: the governance graph with its
 * DENY paths coloured, and the connectome (src/connectome) with its edge signs coloured: a signed
 * graph when one is given, else the declared graph, whose signs are all `unset`. Above
 * MAX_PICTURE_NODES a whole picture is not laid out at all: Graphviz takes minutes on thousands
 * of edges and the result cannot be read; the report's per-agent and per-policy graphs show it in
 * parts instead.
 */
import { buildDeclaredConnectome, type Graph } from '../connectome/index.ts';
import { isToolgateError } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';
import { connectomeDot } from './connectome-dot.ts';
import { MAX_PICTURE_NODES } from './dot.ts';
import { governanceDot } from './governance-dot.ts';
import type { Picture, ReportPictures } from './html.ts';
import type { AuditReport } from './report.ts';
import { renderSvg } from './svg.ts';

const TOO_LARGE = 'the estate is too large to lay out as one picture; open an agent or a policy above to draw its part';

/** `connectome`: a graph whose signs a consumer filled (e.g. compile --signs); the declared one, all `unset`, by default. */
export async function reportPictures(estate: Estate, report: AuditReport, connectomeGraph?: Graph): Promise<ReportPictures> {
  const g = governanceDot(estate, report);
  const governance: Picture = g.truncated ? { unavailable: TOO_LARGE } : { svg: await renderSvg(g.dot, 'governance graph'), truncated: false };
  // Every tool is a connectome node: a catalog with more tools than a picture holds is not built at all.
  const tools = estate.catalog.servers.reduce((n, s) => n + (s.tools?.length ?? 0), 0);
  if (connectomeGraph === undefined && tools > MAX_PICTURE_NODES) return { governance, connectome: { unavailable: TOO_LARGE } };
  let connectome: Picture;
  try {
    const c = connectomeDot(connectomeGraph ?? buildDeclaredConnectome(estate.catalog));
    connectome = c.truncated ? { unavailable: TOO_LARGE } : { svg: await renderSvg(c.dot, 'connectome'), truncated: false };
  } catch (e) {
    // A catalog the connectome refuses (e.g. an id collision) still gets its governance report.
    if (!isToolgateError(e)) throw e;
    connectome = { unavailable: `${e.code}: ${e.message}` };
  }
  return { governance, connectome };
}
