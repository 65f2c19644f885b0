// A checkpoint's answers are saved one at a time per row, the latest change winning (issue 16:
// the save queue of CheckpointsList, as its own tested module).
import { describe, expect, it } from 'vitest';
import { serialSaves } from '#lib/serial-saves.ts';

/** A save the test ends when it wants, and the log of what was sent. */
function harness() {
  const sent: string[] = [];
  const pending: (() => void)[] = [];
  const saves = serialSaves<string, string>((key, value) => {
    sent.push(`${key}=${value}`);
    return new Promise<void>((resolve) => pending.push(resolve));
  });
  const finish = async () => {
    pending.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { saves, sent, finish };
}

describe('saves one at a time per key', () => {
  it('sends a change made during a save after it, and only the latest of them', async () => {
    const { saves, sent, finish } = harness();
    void saves.save('a', 'ok');
    void saves.save('a', 'nok');
    void saves.save('a', 'not_mesurable');
    expect(sent).toEqual(['a=ok']);
    expect(saves.isSaving('a')).toBe(true);
    await finish();
    expect(sent).toEqual(['a=ok', 'a=not_mesurable']);
    await finish();
    expect(saves.isSaving('a')).toBe(false);
  });

  it('lets other keys save at the same time', () => {
    const { saves, sent } = harness();
    void saves.save('a', '1');
    void saves.save('b', '2');
    expect(sent).toEqual(['a=1', 'b=2']);
  });

  it('drops a forgotten change, and goes on after a save that failed', async () => {
    const sent: string[] = [];
    let fail = true;
    const saves = serialSaves<string, string>(async (key, value) => {
      sent.push(`${key}=${value}`);
      if (fail) {
        fail = false;
        throw new Error('refused');
      }
    });
    const first = saves.save('a', '1');
    void saves.save('a', '2');
    saves.forget('a');
    await first;
    expect(sent).toEqual(['a=1']);
    await saves.save('a', '3');
    expect(sent).toEqual(['a=1', 'a=3']);
  });

  it('resolves a waiting change once it is saved', async () => {
    const { saves, sent, finish } = harness();
    void saves.save('a', '1');
    let done = false;
    void saves.save('a', '2').then(() => (done = true));
    await finish();
    expect(done).toBe(false);
    await finish();
    expect(done).toBe(true);
    expect(sent).toEqual(['a=1', 'a=2']);
  });
});
