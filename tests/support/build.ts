// The pages are tested as built: build them first when the sources changed.
import { ensureBuilt } from '../../server/build.ts';

export default function setup() {
  ensureBuilt();
}
