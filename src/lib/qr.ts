// QR codes as inline SVG (rack labels, intervention reports): one path of dark modules, drawn
// crisp at any print size, no image file and no JavaScript.
import { encode } from 'uqr';

/** The `d` of a path drawing the code's dark modules, and its size in modules (border included). */
export function qrPath(text: string, border = 2): { d: string; size: number } {
  const { data } = encode(text, { ecc: 'M', border });
  let d = '';
  for (const [y, row] of data.entries()) {
    for (const [x, dark] of row.entries()) if (dark) d += `M${x} ${y}h1v1h-1z`;
  }
  return { d, size: data.length };
}

const KEPT = 500;
const drawn = new Map<string, { d: string; size: number }>();

/**
 * The QR code of one of the application's addresses (an order's, a box's), kept once drawn: an
 * address is drawn again on every print of its report or label, and drawing it was a sixth of the
 * report page's work. A secret (the authenticator's enrolment code) goes through `qrPath`, never
 * kept. The most recently drawn 500 are kept.
 */
export function addressQr(url: string): { d: string; size: number } {
  const kept = drawn.get(url);
  if (kept) {
    drawn.delete(url);
    drawn.set(url, kept);
    return kept;
  }
  // Shared by every print of the address: frozen, so no caller changes another's.
  const qr = Object.freeze(qrPath(url));
  drawn.set(url, qr);
  if (drawn.size > KEPT) drawn.delete(drawn.keys().next().value!);
  return qr;
}
