/**
 * The HTML report's two pictures, laid out in-process: the governance graph with its DENY paths
 * coloured, and the connectome (src/connectome) with its edge signs coloured: a signed graph when
 * one is given, else the declared graph, whose signs are all `unset`.
 */
import { buildDeclaredConnectome, type Graph } from '../connectome/index.ts';
import { isToolgateError } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';
import { connectomeDot } from './connectome-dot.ts';
import { governanceDot } from './governance-dot.ts';
import type { ReportPictures } from './html.ts';
import type { AuditReport } from './report.ts';
import { renderSvg } from './svg.ts';

/** `connectome`: a graph whose signs a consumer filled (e.g. compile --signs); the declared one, all `unset`, by default. */
export async function reportPictures(estate: Estate, report: AuditReport, connectomeGraph?: Graph): Promise<ReportPictures> {
  const g = governanceDot(estate, report);
  const governance = { svg: await renderSvg(g.dot, 'governance graph'), truncated: g.truncated };
  let connectome: ReportPictures['connectome'];
  try {
    const c = connectomeDot(connectomeGraph ?? buildDeclaredConnectome(estate.catalog));
    connectome = { svg: await renderSvg(c.dot, 'connectome'), truncated: c.truncated };
  } catch (e) {
    // A catalog the connectome refuses (e.g. an id collision) still gets its governance report.
    if (!isToolgateError(e)) throw e;
    connectome = { unavailable: `${e.code}: ${e.message}` };
  }
  return { governance, connectome };
}
