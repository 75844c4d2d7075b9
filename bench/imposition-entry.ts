// Entry of bench/imposition-memory.mjs: the task's steps (read each input, embed its pages, plan
// cut-and-stack sheets on SRA3 with the calculate-count-per-sheet grid, write) without the runner.
import { cutAndStack } from '../src/engine/imposition/layout';
import { Imposer } from '../src/engine/imposition/sheets';
import { chooseGrid, sheetGeometry } from '../src/platform/pipelines/tasks/imposition';

export async function imposeFiles(inputs: Array<() => Uint8Array>) {
  const imposer = await Imposer.create();
  for (const read of inputs) await imposer.add(read());
  const g = sheetGeometry({ sheetSize: 'SRA3', margin: '10mm', gutter: '0', layout: 'auto', scheme: 'cutAndStack', duplex: false, cropMarks: true, slugLine: true });
  const grid = chooseGrid(g, 'auto', imposer.pages[0]!);
  const perSheet = grid.columns * grid.rows;
  const plans = cutAndStack(imposer.pages.length, perSheet).map((cells) => ({ cells }));
  const bytes = await imposer.write(plans, { ...g, grid, duplex: false, cropMarks: true, slug: (s, of) => `Order 1 · Job bench · Sheet ${s} of ${of}` });
  return { bytes, sheets: plans.length, perSheet };
}
