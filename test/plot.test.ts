import {expect} from 'chai';
import * as fs from 'fs';
import * as path from 'path';

import {plotFontFile, plotTrainingCurves, renderSvg} from '../src/train/plot';
import {tempDir} from './temp_dirs';

function darkPixels(pixels: Buffer): number {
  let n = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 100 && pixels[i + 1] < 100 && pixels[i + 2] < 100) ++n;
  return n;
}

describe('plots', () => {
  it('the PNG carries its own font: text drawn with no system font, one legend per chart', async () => {
    const dir = tempDir('wm-plot-');
    try {
      const records = [];
      for (let seed = 0; seed < 2; ++seed)
        for (let epoch = 1; epoch <= 8; ++epoch)
          records.push({
            seed,
            epoch,
            loss: 1 / epoch + seed / 10,
            trainAcc: 0.5 + epoch / 20,
            valAcc: 0.5 + epoch / 25,
            testAcc: 0.5 + epoch / 26,
          });
      const written = await plotTrainingCurves(records, path.join(dir, 'metrics'), 'a title');
      expect(written.map((f) => path.basename(f))).to.deep.equal(['metrics.svg', 'metrics.png']);
      const png = fs.readFileSync(written[1]);
      expect(png.subarray(1, 4).toString()).to.equal('PNG');
      const svg = fs.readFileSync(written[0], 'utf8');
      // Text exists only as glyphs: with no font at all the text is missing (lines and axes are not dark).
      const none = darkPixels(renderSvg(svg, 1, {bundledFont: false, systemFonts: false}).pixels);
      const ours = darkPixels(renderSvg(svg, 1).pixels);
      expect(none).to.equal(0);
      expect(ours).to.be.greaterThan(500);
      expect(fs.existsSync(plotFontFile())).to.equal(true);
      // Each chart has its own legends: the loss chart's colours are the seeds; the accuracy chart's colours
      // are its three series and its dash patterns the seeds.
      const legends = svg.match(/class="mark-group role-legend"/g) ?? [];
      expect(legends.length).to.equal(3);
      for (const name of ['seed 0', 'seed 1', 'train', 'validation', 'test']) expect(svg).to.include(`>${name}<`);
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
});
