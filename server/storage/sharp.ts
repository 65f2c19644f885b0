// sharp loaded once for the whole process, set for a 2-core terminal shared with the pages.
import type SharpModule from 'sharp';

let loaded: Promise<typeof SharpModule> | undefined;

/**
 * sharp without its operation cache (it keeps up to 50 MB of decoded images, and each photo is
 * read once) and with one libvips thread per image: photos are made one at a time already
 * (decision 088), and a thread per core would take the pages' core.
 */
export const loadSharp = () =>
  (loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  }));
