// The smallest files the storage API accepts, for the suites and scripts that upload: one copy.
import { deflateSync } from 'node:zlib';

/** A PDF file-type recognises; a `note` (a PDF comment) makes its bytes, and so its etag, differ. */
export const pdf = (note?: string): Buffer =>
  Buffer.from(
    `%PDF-1.4\n${note === undefined ? '' : `% ${note}\n`}1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n`,
  );

export const PDF = pdf();

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type), data]);
  let c = ~0;
  for (const byte of body) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(~c >>> 0);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, body, crc]);
}

/** A 2×2 RGB PNG that decodes (sharp makes thumbnails of it). */
export function png(): Buffer {
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', Buffer.from([0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0])),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 200, 30, 30, 10, 20, 30, 0, 1, 2, 3, 4, 5, 6]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
