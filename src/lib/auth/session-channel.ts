// Tabs of one browser keep the same session (SPEC §4): a sign-out in one tab signs the others
// out. Refreshed tokens need no message: the tabs share the session cookie.
const CHANNEL = 'atelier-session';

type Message = { type: 'signout' };

const channel = typeof BroadcastChannel !== 'undefined' ? new BroadcastChannel(CHANNEL) : null;

export function announceSignOut(): void {
  channel?.postMessage({ type: 'signout' } satisfies Message);
}

export function listenForSignOut(onSignOut: () => void): void {
  channel?.addEventListener('message', (event: MessageEvent<Message>) => {
    if (event.data?.type === 'signout') onSignOut();
  });
}
