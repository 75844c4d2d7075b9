/**
 * The pure maths of a parametric imposition: where the cells of a columns × rows grid fall on a
 * sheet, which item goes into which cell of which sheet (step-and-repeat or cut-and-stack), and
 * where a back goes so that it registers with its front when the sheet is turned (work-and-turn:
 * turned about its vertical axis, so a cell's back is its mirror image across the sheet).
 * PDF coordinates: points, origin at the sheet's lower-left corner, y up.
 */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Margins {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface SheetGeometry {
  sheet: { width: number; height: number };
  margin: Margins;
  gutterX: number;
  gutterY: number;
}

/** A grid of cells; `cellWidth`/`cellHeight` are the cell's size on the sheet (after rotation). */
export interface Grid {
  columns: number;
  rows: number;
  rotated: boolean;
  cellWidth: number;
  cellHeight: number;
}

const EPS = 1e-6;

/** Whether the grid fits inside the margins. */
export function gridFits(g: SheetGeometry, grid: Grid): boolean {
  const { width, height } = blockSize(g, grid);
  return width <= g.sheet.width - g.margin.left - g.margin.right + EPS && height <= g.sheet.height - g.margin.top - g.margin.bottom + EPS;
}

function blockSize(g: SheetGeometry, grid: Grid) {
  return {
    width: grid.columns * grid.cellWidth + (grid.columns - 1) * g.gutterX,
    height: grid.rows * grid.cellHeight + (grid.rows - 1) * g.gutterY,
  };
}

/**
 * The cells, row by row from the top-left, the block centred in the room inside the margins
 * (so equal left and right margins give a grid symmetric about the sheet's vertical axis).
 */
export function cellBoxes(g: SheetGeometry, grid: Grid): Box[] {
  const block = blockSize(g, grid);
  const roomW = g.sheet.width - g.margin.left - g.margin.right;
  const roomH = g.sheet.height - g.margin.top - g.margin.bottom;
  const left = g.margin.left + (roomW - block.width) / 2;
  const top = g.sheet.height - g.margin.top - (roomH - block.height) / 2;
  const boxes: Box[] = [];
  for (let r = 0; r < grid.rows; r++) {
    for (let c = 0; c < grid.columns; c++) {
      boxes.push({
        x: left + c * (grid.cellWidth + g.gutterX),
        y: top - (r + 1) * grid.cellHeight - r * g.gutterY,
        width: grid.cellWidth,
        height: grid.cellHeight,
      });
    }
  }
  return boxes;
}

/** A cell's position on the back of a sheet turned about its vertical axis. */
export const turned = (box: Box, sheetWidth: number): Box => ({ ...box, x: sheetWidth - box.x - box.width });

/**
 * Step and repeat: each item fills sheets of its own, `quantity` copies of it in all
 * (ceil(quantity / perSheet) sheets; the last one holds the rest). -1 = an empty cell.
 */
export function stepAndRepeat(items: number, perSheet: number, quantity: number): number[][] {
  const sheets: number[][] = [];
  for (let item = 0; item < items; item++) {
    for (let left = quantity; left > 0; left -= perSheet) {
      sheets.push(Array.from({ length: perSheet }, (_, slot) => (slot < left ? item : -1)));
    }
  }
  return sheets;
}

/**
 * Cut and stack: with S = ceil(items / perSheet) sheets, cell k of sheet s holds item k·S + s,
 * so once the pile of sheets is cut, stack k holds items k·S … k·S + S − 1 in order, and the
 * stacks laid one after the other give the items in their original order.
 */
export function cutAndStack(items: number, perSheet: number): number[][] {
  const S = Math.ceil(items / perSheet);
  return Array.from({ length: S }, (_, s) => Array.from({ length: perSheet }, (_, k) => (k * S + s < items ? k * S + s : -1)));
}
