/**
 * Draw SkyCite's app icons (no external assets): a white quadcopter seen from above, with
 * yellow rotor rings, on dark navy. Writes public/icons/*.png.
 *
 *   npx tsx tools/icons/make-icons.ts [outDir]
 *
 * 'any' icons: rounded navy square on transparency. 'maskable' icons: full-bleed navy,
 * glyph inside the central safe circle (radius 40 % of the size).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { encodePng } from './png.js';

type Rgb = readonly [number, number, number];
export const NAVY: Rgb = [0x0b, 0x1f, 0x3a];
export const WHITE: Rgb = [0xff, 0xff, 0xff];
export const YELLOW: Rgb = [0xff, 0xd2, 0x1f];

function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Colour of the glyph at (x, y) in glyph units ([-1, 1]², y down), or null for background. */
function glyph(x: number, y: number): Rgb | null {
  const rotor = 0.55;
  // Body.
  if (Math.hypot(x, y) <= 0.2) return WHITE;
  for (const sx of [-1, 1]) {
    for (const sy of [-1, 1]) {
      const cx = sx * rotor;
      const cy = sy * rotor;
      const d = Math.hypot(x - cx, y - cy);
      // Rotor ring and hub.
      if (Math.abs(d - 0.25) <= 0.045) return YELLOW;
      if (d <= 0.07) return WHITE;
      // Arm from the body to the hub.
      if (segmentDistance(x, y, 0, 0, cx, cy) <= 0.055) return WHITE;
    }
  }
  return null;
}

/** Largest distance of the glyph from its centre, in glyph units (rotor ring outer edge). */
const GLYPH_RADIUS = Math.hypot(0.55, 0.55) + 0.25 + 0.045;

export interface IconOptions {
  maskable: boolean;
  /** Samples per pixel side (anti-aliasing). */
  supersample?: number;
}

/** Render an icon to RGBA pixels. */
export function renderIcon(size: number, options: IconOptions): Uint8Array {
  const ss = options.supersample ?? 4;
  // Glyph units per pixel: maskable icons keep the glyph inside the 40 % safe circle.
  const glyphScale = options.maskable ? (0.4 * size) / GLYPH_RADIUS : (0.46 * size) / 0.85;
  const corner = 0.18 * size; // rounded square for 'any' icons
  const out = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const fx = px + (sx + 0.5) / ss;
          const fy = py + (sy + 0.5) / ss;
          let inside = true;
          if (!options.maskable) {
            // Rounded-square mask.
            const qx = Math.max(corner - fx, fx - (size - corner), 0);
            const qy = Math.max(corner - fy, fy - (size - corner), 0);
            inside = Math.hypot(qx, qy) <= corner;
          }
          if (!inside) continue;
          const c = glyph((fx - size / 2) / glyphScale, (fy - size / 2) / glyphScale) ?? NAVY;
          r += c[0];
          g += c[1];
          b += c[2];
          a += 255;
        }
      }
      const n = ss * ss;
      const i = (py * size + px) * 4;
      // Premultiplied sums → straight alpha.
      const cov = a / 255;
      out[i] = cov > 0 ? Math.round(r / cov) : 0;
      out[i + 1] = cov > 0 ? Math.round(g / cov) : 0;
      out[i + 2] = cov > 0 ? Math.round(b / cov) : 0;
      out[i + 3] = Math.round(a / n);
    }
  }
  return out;
}

export const ICONS: readonly { file: string; size: number; maskable: boolean }[] = [
  { file: 'icon-192.png', size: 192, maskable: false },
  { file: 'icon-512.png', size: 512, maskable: false },
  { file: 'maskable-192.png', size: 192, maskable: true },
  { file: 'maskable-512.png', size: 512, maskable: true },
  { file: 'apple-touch-icon-180.png', size: 180, maskable: true },
];

export function writeIcons(outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  return ICONS.map(({ file, size, maskable }) => {
    const target = path.join(outDir, file);
    writeFileSync(target, encodePng(size, size, renderIcon(size, { maskable })));
    return target;
  });
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const outDir = path.resolve(process.argv[2] ?? path.join(repoRoot, 'public/icons'));
  for (const f of writeIcons(outDir)) console.log(`wrote ${path.relative(process.cwd(), f)}`);
}
