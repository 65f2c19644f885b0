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
