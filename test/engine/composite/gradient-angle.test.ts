import { describe, expect, it } from 'vitest';
import { angleT, styleT } from '../../../src/engine/composite/gradient-geometry';

/**
 * The angle gradient's sweep (issue 25 §2, docs/fidelity.md "Gradients"): clockwise on screen
 * from the angle's direction, as photocraft's `gradient_t` (fitted on psd-tools' gradient-styles.psd,
 * Photoshop's own renderings) and psd-tools' `_make_angle_gradient` (held to the same file's
 * stored pixels by its test_gradient_styles) draw it. Offsets are from the centre, y down.
 */
const deg = (d: number) => (d * Math.PI) / 180;

describe('angle gradient sweep', () => {
  it('starts at the angle and runs clockwise on screen (0°: right, then down, left, up)', () => {
    expect(angleT(10, 0, 0)).toBeCloseTo(0, 9);
    expect(angleT(0, 10, 0)).toBeCloseTo(0.25, 9); // below the centre: a quarter turn clockwise
    expect(angleT(-10, 0, 0)).toBeCloseTo(0.5, 9);
    expect(angleT(0, -10, 0)).toBeCloseTo(0.75, 9); // above: photocraft's gradient_geometry test
  });

  it('the angle moves the start: at 90° t = 0 straight up and ¼ to the right', () => {
    expect(angleT(0, -10, deg(90))).toBeCloseTo(0, 9);
    expect(angleT(10, 0, deg(90))).toBeCloseTo(0.25, 9);
    expect(angleT(0, 10, deg(90))).toBeCloseTo(0.5, 9);
    expect(angleT(-10, 0, deg(90))).toBeCloseTo(0.75, 9);
    // 30°: 60° further clockwise, at screen angle −30°.
    expect(angleT(Math.cos(deg(-30)), -Math.sin(deg(-30)), deg(30))).toBeCloseTo(60 / 360, 9);
  });

  it('is Reverse of the counterclockwise reading (what was drawn before), away from the seam', () => {
    for (const a of [0, 37, 90, 200]) {
      for (const [x, y] of [[3, 1], [-2, 5], [-4, -4], [1, -7]]) {
        const before = ((Math.atan2(-y, x) - deg(a)) / (2 * Math.PI) + 2) % 1;
        expect(angleT(x, y, deg(a)) + before).toBeCloseTo(1, 9);
      }
    }
  });

  it('stays within 0..1 for any angle, negative or past a turn', () => {
    for (const a of [-720, -90, 0, 359.9, 1080]) {
      for (const [x, y] of [[1, 0], [0, 1], [-1, -1e-12], [-1, 1e-12]]) {
        const t = angleT(x, y, deg(a));
        expect(t).toBeGreaterThanOrEqual(0);
        expect(t).toBeLessThan(1);
      }
    }
  });

  it('styleT keeps the other styles as they were', () => {
    const dx = Math.cos(deg(30));
    const dy = -Math.sin(deg(30));
    expect(styleT('radial', 3, 4, dx, dy, deg(30), 20, 10)).toBeCloseTo(0.5, 9);
    expect(styleT('reflected', 5 * dx, 5 * dy, dx, dy, deg(30), 20, 10)).toBeCloseTo(0.5, 9);
    expect(styleT('reflected', -5 * dx, -5 * dy, dx, dy, deg(30), 20, 10)).toBeCloseTo(0.5, 9);
    expect(styleT('linear', 5 * dx, 5 * dy, dx, dy, deg(30), 20, 10)).toBeCloseTo(0.75, 9);
    // A diamond's corner along the angle: 5 px along and 5 px across sum to the radius.
    expect(styleT('diamond', 5 * dx - 5 * dy, 5 * dy + 5 * dx, dx, dy, deg(30), 20, 10)).toBeCloseTo(1, 9);
    expect(styleT('angle', 0, 10, 1, 0, 0, 20, 10)).toBeCloseTo(0.25, 9);
  });
});
