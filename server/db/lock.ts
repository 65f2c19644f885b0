// One process per PGlite directory: a second writer would corrupt it.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export class DatabaseLockedError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock file or throws; a lock left by a dead process is taken over. */
export function acquireLock(file: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
        throw new DatabaseLockedError(`The database in ${file.replace(/\.lock$/, '')} is already open in process ${pid}; stop it first`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new DatabaseLockedError(`Could not take the lock ${file}`);
}
