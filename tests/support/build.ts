// The pages are tested as built: build them first when the sources changed.
// SKIP_BUILD=1 skips it for a run of API tests alone while the pages are being edited.
import { ensureBuilt } from '#server/build.ts';

export default function setup() {
  if (process.env.SKIP_BUILD !== '1') ensureBuilt();
}
