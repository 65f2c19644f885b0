// The pages are tested as built: build them first when the sources changed.
// SKIP_BUILD=1 skips it for a run of API tests alone while the pages are being edited. A build
// that prints a warning fails the run: a newcomer reads every WARN as a problem (issue 30).
import { ensureBuilt } from '#server/build.ts';

export default function setup() {
  if (process.env.SKIP_BUILD !== '1') ensureBuilt({ refuseWarnings: true });
}
