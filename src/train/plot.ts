// Draws training curves (loss and accuracy per epoch, one line per seed) as
// SVG with vega-lite, and as PNG through resvg when it is installed.
import * as fs from 'fs';

export interface PlotRecord {
  seed: number;
  epoch: number;
  loss: number;
  [metric: string]: number;
}

/** The right-hand panel's lines: record field -> legend name. */
export type MetricSeries = {[field: string]: string};

const ACCURACY: MetricSeries = {trainAcc: 'train', valAcc: 'validation', testAcc: 'test'};

// vega and vega-lite are ES modules only; TypeScript's CommonJS output would
// turn import() into require(), so keep a real dynamic import.
const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<any>;

/** Writes `${prefix}.svg` (and `${prefix}.png` if possible); returns the paths written. */
export async function plotTrainingCurves(
  records: PlotRecord[],
  prefix: string,
  title: string,
  series: MetricSeries = ACCURACY,
  panel = 'accuracy',
): Promise<string[]> {
  const [vega, vegaLite] = await Promise.all([importEsm('vega'), importEsm('vega-lite')]);
  const rows = records.flatMap((r) => [
    {seed: `seed ${r.seed}`, epoch: r.epoch, metric: 'loss', value: r.loss, panel: 'training loss'},
    ...Object.entries(series).map(([field, name]) => ({seed: `seed ${r.seed}`, epoch: r.epoch, metric: name, value: r[field], panel})),
  ]);
  const line = (panel: string, yTitle: string, scale: object) => ({
    width: 420,
    height: 260,
    title: panel,
    transform: [{filter: `datum.panel === '${panel}'`}],
    mark: {type: 'line', strokeWidth: 1.5},
    encoding: {
      x: {field: 'epoch', type: 'quantitative'},
      y: {field: 'value', type: 'quantitative', title: yTitle, scale},
      color: {field: 'metric', type: 'nominal'},
      detail: {field: 'seed', type: 'nominal'},
    },
  });
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: {values: rows},
    background: 'white',
    hconcat: [line('training loss', 'loss', {type: 'log'}), line(panel, panel, {zero: false})],
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), {renderer: 'none'});
  const svg: string = await view.toSVG();
  view.finalize();
  const written = [`${prefix}.svg`];
  fs.writeFileSync(written[0], svg);
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const {Resvg} = require('@resvg/resvg-js');
    const png = new Resvg(svg, {background: 'white', fitTo: {mode: 'zoom', value: 2}}).render().asPng();
    fs.writeFileSync(`${prefix}.png`, png);
    written.push(`${prefix}.png`);
  } catch (e) {
    process.stderr.write(`(no PNG: ${(e as Error).message}; the SVG has the same plot)\n`);
  }
  return written;
}
