/**
 * The HTML report's two whole-estate pictures, laid out in-process: the governance graph with its
 * DENY paths coloured, and the connectome (src/connectome) with its edge signs coloured: a signed
 * graph when one is given, else the declared graph, whose signs are all `unset`. Above
 * MAX_PICTURE_NODES a picture is not laid out at all: Graphviz takes minutes on thousands of edges
 * and the result cannot be read; the report's per-agent and per-policy graphs show it in parts.
 */
import { buildDeclaredConnectome, type Graph } from '../connectome/index.ts';
import { isToolgateError } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';
import { connectomeDot } from './connectome-dot.ts';
import { MAX_PICTURE_NODES } from './dot.ts';
import { governanceDot, governancePictureNodes } from './governance-dot.ts';
import type { Picture, ReportPictures } from './html.ts';
import type { AuditReport } from './report.ts';
import { renderSvg } from './svg.ts';

const tooLarge = (nodes: number): Picture => ({ unavailable: `${nodes} nodes are too many to lay out as one readable picture (the limit is ${MAX_PICTURE_NODES}); open an agent or a policy above to draw its part` });

/** `connectome`: a graph whose signs a consumer filled (e.g. compile --signs); the declared one, all `unset`, by default. */
export async function reportPictures(estate: Estate, report: AuditReport, connectomeGraph?: Graph): Promise<ReportPictures> {
  const governanceNodes = governancePictureNodes(estate);
  const governance: Picture = governanceNodes > MAX_PICTURE_NODES ? tooLarge(governanceNodes) : { svg: await renderSvg(governanceDot(estate, report).dot, 'governance graph') };
  // Every tool is a connectome node: a catalog with more tools than a picture holds is not built at all.
  const tools = estate.catalog.servers.reduce((n, s) => n + (s.tools?.length ?? 0), 0);
  if (connectomeGraph === undefined && tools > MAX_PICTURE_NODES) return { governance, connectome: tooLarge(tools) };
  let connectome: Picture;
  try {
    const graph = connectomeGraph ?? buildDeclaredConnectome(estate.catalog);
    connectome = graph.nodes.length > MAX_PICTURE_NODES ? tooLarge(graph.nodes.length) : { svg: await renderSvg(connectomeDot(graph).dot, 'connectome') };
  } catch (e) {
    // A catalog the connectome refuses (e.g. an id collision) still gets its governance report.
    if (!isToolgateError(e)) throw e;
    connectome = { unavailable: `${e.code}: ${e.message}` };
  }
  return { governance, connectome };
}
