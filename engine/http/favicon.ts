/**
 * `/favicon.ico`, which browsers ask for on every page: a 16×16 icon (three rising white bars on
 * blue) drawn here as a 32-bit ICO, so nothing is fetched from elsewhere and nothing answers 404.
 */
import type Router from '@koa/router';

const SIZE = 16;
const BLUE = [0x2b, 0x5f, 0xab, 0xff];
const WHITE = [0xff, 0xff, 0xff, 0xff];
const CLEAR = [0, 0, 0, 0];
/** Bars as [first column, last column, top row]; all end above row 13. */
const BARS = [
  [3, 4, 9],
  [7, 8, 6],
  [11, 12, 3],
];

function colour(x: number, y: number): number[] {
  if ((x === 0 || x === SIZE - 1) && (y === 0 || y === SIZE - 1)) return CLEAR;
  return BARS.some(([from, to, top]) => x >= from! && x <= to! && y >= top! && y < 13) ? WHITE : BLUE;
}

function drawIcon(): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  // the image: a bitmap header, BGRA pixels bottom row first, and an all-clear AND mask (alpha decides)
  const pixels = Buffer.alloc(40 + SIZE * SIZE * 4 + SIZE * 4);
  pixels.writeUInt32LE(40, 0);
  pixels.writeInt32LE(SIZE, 4);
  pixels.writeInt32LE(SIZE * 2, 8); // colour and mask stacked
  pixels.writeUInt16LE(1, 12);
  pixels.writeUInt16LE(32, 14);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = colour(x, y);
      pixels.set([b!, g!, r!, a!], 40 + ((SIZE - 1 - y) * SIZE + x) * 4);
    }
  }
  header.writeUInt32LE(pixels.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, pixels]);
}

export function mountFavicon(router: Router): void {
  const icon = drawIcon();
  router.get('/favicon.ico', (ctx) => {
    ctx.type = 'image/x-icon';
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = icon;
  });
}
