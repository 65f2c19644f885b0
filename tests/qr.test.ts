// An address's QR code is drawn once and kept (decision 081); a secret's is never kept.
import { describe, expect, it } from 'vitest';
import { addressQr, qrPath } from '#lib/qr.ts';

describe('addressQr', () => {
  it('draws what qrPath draws, and hands back the kept drawing for the same address', () => {
    const url = 'https://atelier.example/repair-order/7d3c2a1e-0000-4000-8000-000000000001';
    const first = addressQr(url);
    expect(first).toEqual(qrPath(url));
    expect(addressQr(url)).toBe(first);
  });

  it('keeps the 500 most recently drawn: an address not asked for since 500 others is drawn again', () => {
    const address = (n: number) => `https://atelier.example/stock?article=${n}`;
    const oldest = addressQr(address(0));
    const recent = addressQr(address(1));
    for (let n = 2; n < 500; n++) addressQr(address(n));
    expect(addressQr(address(1))).toBe(recent);
    addressQr(address(500));
    addressQr(address(501));
    expect(addressQr(address(0))).not.toBe(oldest);
    expect(addressQr(address(1))).toBe(recent);
  });
});
