// Draws training curves (loss and accuracy per epoch, one line per seed) as
// SVG with vega-lite, and as PNG through resvg. The PNG's text is drawn with
// a font the package carries (Inter, from @expo-google-fonts/inter), never
// the system's: a machine without fonts gets the same picture.
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

const FONT_FAMILY = 'Inter';

/** The TrueType file the PNG's text is drawn with. */
export function plotFontFile(): string {
  return require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf');
}

/** Rendered pixels (RGBA) of an SVG at `zoom`, its text in the bundled font (system fonts only with `systemFonts`). */
export function renderSvg(
  svg: string,
  zoom = 2,
  opts: {bundledFont?: boolean; systemFonts?: boolean} = {},
): {width: number; height: number; pixels: Buffer; asPng(): Buffer} {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const {Resvg} = require('@resvg/resvg-js');
  const font = {
    fontFiles: opts.bundledFont === false ? [] : [plotFontFile()],
    loadSystemFonts: opts.systemFonts ?? false,
    defaultFontFamily: FONT_FAMILY,
    sansSerifFamily: FONT_FAMILY,
    serifFamily: FONT_FAMILY,
    monospaceFamily: FONT_FAMILY,
  };
  return new Resvg(svg, {background: 'white', fitTo: {mode: 'zoom', value: zoom}, font}).render();
}

/** An SVG as PNG (2x), its text in the bundled font. */
export function svgToPng(svg: string): Buffer {
  return renderSvg(svg).asPng();
}

/** Writes `${prefix}.svg` (and `${prefix}.png` if possible); returns the paths written. `log` records the plot's title and series. */
export async function plotTrainingCurves(
  records: PlotRecord[],
  prefix: string,
  title: string,
  series: MetricSeries = ACCURACY,
  panel = 'accuracy',
  log?: {write(record: object): void},
): Promise<string[]> {
  // The run's metrics say how they were drawn, so `npm run plot` draws them again the same way.
  log?.write({type: 'plot', title, series, panel});
  const [vega, vegaLite] = await Promise.all([importEsm('vega'), importEsm('vega-lite')]);
  // Epochs without a figure (a metric judged every few epochs) are left out, so each line joins the epochs that have one.
  const rows = records
    .flatMap((r) => [
      {seed: `seed ${r.seed}`, epoch: r.epoch, metric: 'loss', value: r.loss, panel: 'training loss'},
      ...Object.entries(series).map(([field, name]) => ({seed: `seed ${r.seed}`, epoch: r.epoch, metric: name, value: r[field], panel})),
    ])
    .filter((row) => typeof row.value === 'number' && Number.isFinite(row.value));
  const seeds = new Set(records.map((r) => r.seed)).size;
  const maxEpoch = Math.max(...records.map((r) => r.epoch));
  const line = (panel: string, yTitle: string, scale: object, bySeed: boolean) => ({
    width: 420,
    height: 260,
    title: {text: panel, offset: 8},
    transform: [{filter: `datum.panel === '${panel}'`}],
    mark: {type: 'line', strokeWidth: 1.5},
    // Each chart its own colours and legend. The loss: a colour per seed. The metrics: a colour per
    // series and, with several seeds, a dash pattern per seed.
    encoding: {
      // Whole epochs only: a short run's axis would otherwise tick at 0.5.
      x: {field: 'epoch', type: 'quantitative', axis: {tickMinStep: 1, format: 'd'}, scale: {domain: [1, Math.max(2, maxEpoch)]}},
      y: {field: 'value', type: 'quantitative', title: yTitle, scale},
      color: bySeed ? {field: 'seed', type: 'nominal', title: 'seed'} : {field: 'metric', type: 'nominal', title: null},
      ...(bySeed || seeds === 1
        ? {detail: {field: 'seed', type: 'nominal'}}
        : {strokeDash: {field: 'seed', type: 'nominal', title: 'seed'}}),
    },
  });
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    // The figure's title above the panels' own, clear of them.
    title: {text: title, anchor: 'start', offset: 16, fontSize: 14},
    data: {values: rows},
    background: 'white',
    config: {font: FONT_FAMILY},
    resolve: {scale: {color: 'independent', strokeDash: 'independent'}, legend: {color: 'independent', strokeDash: 'independent'}},
    hconcat: [
      // A log axis over the losses' own range (a nice axis would widen 0.77-1.4 to 0.1-10).
      line('training loss', 'loss', {type: 'log', nice: false}, true),
      line(panel, panel, {zero: false}, false),
    ],
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), {renderer: 'none'});
  const svg: string = await view.toSVG();
  view.finalize();
  const written = [`${prefix}.svg`];
  fs.writeFileSync(written[0], svg);
  try {
    fs.writeFileSync(`${prefix}.png`, svgToPng(svg));
    written.push(`${prefix}.png`);
  } catch (e) {
    process.stderr.write(`(no PNG: ${(e as Error).message}; the SVG has the same plot)\n`);
  }
  return written;
}
