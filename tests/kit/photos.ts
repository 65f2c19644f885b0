// Photos as a tablet or a phone takes them (issue 32): JPEG, PNG and WebP with EXIF, a camera's
// make and a GPS position, turned by their orientation tag; and a phone's full-size JPEG, made
// from noise so that it weighs what a real one does. Made here rather than committed.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

export const PHOTO_FORMATS = ['jpeg', 'png', 'webp'] as const;
export type PhotoFormat = (typeof PHOTO_FORMATS)[number];

const GPS = { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 3/1' };

/** 300×200 pixels stored, orientation 6: shown upright, it is 200 wide and 300 high. */
export function cameraPhoto(format: PhotoFormat, colour = '#c04020'): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 200, channels: 3, background: colour } })
    .withExif({ IFD0: { Make: 'Samsung', Model: 'Galaxy Tab Active' }, IFD3: GPS })
    .withMetadata({ orientation: 6 })
    [format]()
    .toBuffer();
}

/** A phone camera's full-size JPEG: 4,000 × 3,000 pixels of noise at high quality, over 5 MB, with GPS. */
export async function phonePhoto(): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const noise = Buffer.alloc(width * height * 3);
  let seed = 42;
  for (let i = 0; i < noise.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    noise[i] = seed >> 23;
  }
  return sharp(noise, { raw: { width, height, channels: 3 } })
    .withExif({ IFD0: { Make: 'Google', Model: 'Pixel' }, IFD3: GPS })
    .jpeg({ quality: 95 })
    .toBuffer();
}

/** Whether EXIF data (`metadata().exif`) holds a GPS IFD: IFD0's tag 0x8825, read from the TIFF header. */
export function hasGpsIfd(exif: Buffer | undefined): boolean {
  if (!exif) return false;
  const tiff = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? exif.subarray(6) : exif;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd0 = u32(4);
  const entries = u16(ifd0);
  for (let i = 0; i < entries; i++) if (u16(ifd0 + 2 + i * 12) === 0x8825) return true;
  return false;
}

/** A JPEG's or a WebP's bytes carry an EXIF block when they hold its header. */
export const carriesExif = (bytes: Buffer) => bytes.includes(Buffer.from('Exif\0\0', 'latin1')) || bytes.includes(Buffer.from('EXIF', 'latin1'));

/** The start of an iPhone's HEIC: what `file-type` reads as image/heic. */
export const HEIC = Buffer.concat([Buffer.from('000000186674797068656963000000006d69663168656963', 'hex'), Buffer.alloc(2000, 1)]);

/** A PNG chunk, its CRC computed. */
export const pngChunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** A 68-byte PNG that says it is 10,000 × 10,000 pixels: a decompression bomb, refused from its header. */
export function pixelBomb(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(10_000, 0);
  header.writeUInt32BE(10_000, 4);
  header[8] = 8;
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.alloc(10))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
