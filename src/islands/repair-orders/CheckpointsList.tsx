// The checkpoints of an order's validated procedures, answered on the shop floor (SPEC §2.7):
// a result is saved as soon as it is chosen, a value or a comment when the field is left (before
// a result too: nothing typed waits for one); each row says "saved" or "failed" (the entry stays,
// with a retry), and follows what colleagues answer on other terminals. In a Wi-Fi dead spot an
// answer stays on screen marked «Non enregistré», kept in this browser (per user and order) across
// a reload, and is sent once the network is back, in the order typed; each carries the version
// it was typed over, so a retry whose first try did arrive is recognised, never applied twice
// (decision 039). A value that is not a number is said beside its field and held back; the result
// and comment go all the same (walk31 W2). Large targets, plain radios and fields: gloves and keyboards both
// work. Rendered on the server as forms that post without JavaScript. The labels come as props:
// the island ships no message catalogue.
import { useEffect, useRef, useState } from 'react';
import { ClientError } from 'graphql-request';
import { checkResults, type CheckResult } from '#lib/repair-orders/check-results.ts';
import { dayOf, formatDate, formatDayMonth, formatTime, isSameDay, workshopToday } from '#lib/format.ts';
import { hasCode, hasReason } from '#lib/errors.ts';
import { apiErrorOf, graphqlRequest, graphqlSubscribe } from '#lib/graphql-client.ts';
import { graphql } from '#lib/graphql.ts';
import { CheckpointFields, CLOSE_ORDER, type Draft, type OrderCheckpoint } from '#lib/repair-orders/checkpoints.ts';
import { serialSaves } from '#lib/serial-saves.ts';
import { showToast } from '#lib/toasts.ts';
import { useHydrated } from '#lib/use-hydrated.ts';

export type CheckpointLabels = {
  results: Record<CheckResult, string>;
  result: string;
  value: string;
  comment: string;
  save: string;
  saving: string;
  saved: string;
  failed: string;
  retry: string;
  unanswered: string;
  /** 'Saisie enregistrée {{time}} : choisissez un résultat' */
  partSaved: string;
  /** 'Non enregistré : envoi au retour du réseau' */
  unsent: string;
  invalidNumber: string;
  close: string;
  closeTitle: string;
  closeHint: string;
  closeComment: string;
  closeConfirm: string;
  cancel: string;
  /** '{{count}} points de contrôle à renseigner…', and its singular (French: 0 and 1). */
  remaining: string;
  remainingOne: string;
  /** '{{count}} points de contrôle « Non conforme » :', and its singular. */
  nonConform: string;
  nonConformOne: string;
  /** The toast once closed: 'OR clôturé'. */
  closed: string;
  /** 'à {{hour}}' */
  todayAt: string;
  /** 'le {{day}} à {{hour}}' */
  dayAt: string;
  /** A colleague's answer over one typed offline: 'Un collègue vient de renseigner ce point…' */
  stale: string;
  /** 'Votre saisie : {{answer}}' */
  mine: string;
  /** 'Reprendre ma saisie' */
  takeBack: string;
  /** The order closed elsewhere while this tab was open; and reopened. */
  closedMeanwhile: string;
  reopenedMeanwhile: string;
  /** An answer not saved because the order was closed meanwhile: it stays on screen. */
  unsavedClosed: string;
  /** 'Afficher l'OR à jour' */
  refresh: string;
};

type Props = {
  orderId: string;
  /** Who answers: the answers kept in this browser while offline are theirs only. */
  userId: string;
  checkpoints: OrderCheckpoint[];
  /** Group titles, by order procedure id, in order. */
  procedures: { id: string; title: string }[];
  /** May answer and close while the order is in progress. */
  canFollow: boolean;
  /** Closed when the page was drawn; followed live after that. */
  closed: boolean;
  /** Where a form posts without JavaScript (the procedure tab's URL). */
  action: string;
  labels: CheckpointLabels;
  /** A post without JavaScript that failed: that row comes back as typed, with the reason. */
  failure?: { id: string; values: Draft; message: string } | null;
  /**
   * Each checkpoint's photos and photo forms, by id (decision 088), as markup the server drew
   * (PhotoGrid): plain forms that post to the page, so the island ships none of their code.
   */
  photos: Record<string, string>;
};

/** `mine`: a conflict's own answer, kept on screen to apply again. */
type RowState = { status: 'idle' | 'saving' | 'saved' | 'failed' | 'conflict' | 'unsent'; message?: string; mine?: Draft };
type Field = keyof Draft;
const FIELDS: Field[] = ['checkResult', 'measuredValue', 'comment'];
/**
 * An answer not sent yet: the version it was typed over, and what was typed. `after`: typed while
 * this user's previous save of the row was on its way, it also fits the version that save makes.
 */
type Unsent = { id: string; version: number; after?: number; draft: Draft };

const ANSWER = graphql(
  `mutation($id: uuid!, $v: Int!, $o: order_checkpoints_input!) { answerOrderCheckpoint(id: $id, version: $v, object: $o) { ...CheckpointFields } }`,
  [CheckpointFields],
);
const LIVE = graphql(`subscription($o: uuid!) { orderCheckpoints(repairOrderId: $o) { ...CheckpointFields } }`, [CheckpointFields]);
const STATUS = graphql(`subscription($o: uuid!) { repairOrderStatus(repairOrderId: $o) }`);
const CURRENT = graphql(`query($o: uuid!) { repairOrder(id: $o) { checkpoints { ...CheckpointFields } } }`, [CheckpointFields]);
const STATUS_NOW = graphql(`query($o: uuid!) { repairOrder(id: $o) { status } }`);

const draftOf = (c: OrderCheckpoint): Draft => ({
  checkResult: c.checkResult,
  measuredValue: c.measuredValue === null ? '' : String(c.measuredValue).replace('.', ','),
  comment: c.comment,
});
/** "à 14:05" today, "le 12/11 à 14:05" another day, on the workshop's clock (server and browser alike). */
const time = (iso: string | null, labels: Pick<CheckpointLabels, 'todayAt' | 'dayAt'>) => {
  if (!iso) return '';
  const hour = formatTime(iso);
  if (isSameDay(iso, new Date())) return labels.todayAt.replace('{{hour}}', hour);
  // The year only when it is not this one.
  const day = dayOf(iso).slice(0, 4) === workshopToday().slice(0, 4) ? formatDayMonth(iso) : formatDate(iso);
  return labels.dayAt.replace('{{day}}', day).replace('{{hour}}', hour);
};
const numberOf = (text: string) => (text.trim() === '' ? null : Number(text.trim().replace(/\s/g, '').replace(',', '.')));
/** The same field, whatever the spelling of the value ("4,30" is 4.3). */
const sameField = (f: Field, a: Draft, b: Draft) =>
  f === 'measuredValue' ? numberOf(a[f]) === numberOf(b[f]) : f === 'comment' ? a[f].trim() === b[f].trim() : a[f] === b[f];
const sameAnswer = (a: Draft, b: Draft) => FIELDS.every((f) => sameField(f, a, b));
/** The order's unsent answers, oldest first, mirrored in this browser's storage under `key`. */
function unsentAnswers(key: string) {
  const list = new Map<string, Unsent>();
  const keep = () => {
    try {
      if (list.size) localStorage.setItem(key, JSON.stringify([...list.values()]));
      else localStorage.removeItem(key);
    } catch {
      // Storage full or refused: the answers stay on screen all the same.
    }
  };
  return {
    has: (id: string) => list.has(id),
    get: (id: string) => list.get(id),
    get size() {
      return list.size;
    },
    values: () => [...list.values()],
    /** Kept as the latest unsent answer of its checkpoint, now the newest. */
    put(unsent: Unsent) {
      list.delete(unsent.id);
      list.set(unsent.id, unsent);
      keep();
    },
    /** Saved, refused or superseded: no longer to send (only `draft` when given: a newer one typed since stays). */
    settle(id: string, draft?: Draft) {
      const kept = list.get(id);
      if (!kept || (draft && !sameAnswer(kept.draft, draft))) return;
      list.delete(id);
      keep();
    },
    /** What an earlier visit left unsent, over the version each checkpoint still has. */
    restore(current: { id: string; version: number }[]): Unsent[] {
      let stored: Unsent[] = [];
      try {
        const parsed = JSON.parse(localStorage.getItem(key) ?? '[]') as Unsent[];
        if (Array.isArray(parsed)) stored = parsed.filter((u) => typeof u?.id === 'string' && typeof u.version === 'number' && u.draft);
      } catch {
        // Unreadable: nothing to restore.
      }
      for (const u of stored) {
        const now = current.find((c) => c.id === u.id);
        if (now && (now.version === u.version || now.version === u.after)) list.set(u.id, { id: u.id, version: now.version, draft: u.draft });
      }
      keep();
      return [...list.values()];
    },
  };
}
/** The toast to show once the page is drawn again after closing (a reload loses the island's own). */
const CLOSED_TOAST = 'atelier:or-cloture';
const RETRY_EVERY_MS = 15_000;
const isNumber = (text: string) => text.trim() === '' || /^[-+]?\d+([.,]\d+)?$/.test(text.trim().replace(/\s/g, ''));
/**
 * What of an answer can be sent: all of it, or, while the value is not a number, the result and
 * the comment over the value the server holds (a result tapped with gloves is never held back by
 * a typo in the value, walk31 W2; the value stays on screen, marked).
 */
const sendable = (draft: Draft, serverValue: string): Draft => (isNumber(draft.measuredValue) ? draft : { ...draft, measuredValue: serverValue });

export default function CheckpointsList(props: Props) {
  const hydrated = useHydrated();
  const { labels } = props;
  const [rows, setRows] = useState(props.checkpoints);
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() => ({
    ...Object.fromEntries(props.checkpoints.map((c) => [c.id, draftOf(c)])),
    ...(props.failure ? { [props.failure.id]: props.failure.values } : {}),
  }));
  const [states, setStates] = useState<Record<string, RowState>>(() =>
    props.failure ? { [props.failure.id]: { status: 'failed', message: props.failure.message } } : {},
  );
  const [closing, setClosing] = useState(false);
  const [closeError, setCloseError] = useState('');
  // The order's status, followed live: a closing or a reopening elsewhere disables or enables the answers.
  const [closed, setClosed] = useState(props.closed);
  const [followed, setFollowed] = useState(false);
  const canAnswer = props.canFollow && !closed;
  const dialog = useRef<HTMLDialogElement>(null);
  // The fields the user changed since the server last held them, per row, and the one with the
  // focus: a save's reply or a live update never replaces those, only the others (and the version).
  const edited = useRef(new Map<string, Set<Field>>(props.failure ? [[props.failure.id, new Set(FIELDS)]] : []));
  const focused = useRef('');
  const statesNow = useRef(states);
  statesNow.current = states;
  // The rows whose value, typed, is not a number: said beside the field, the rest of the row saved all the same.
  const [badValues, setBadValues] = useState<Record<string, boolean>>({});
  const markBad = (id: string, bad: boolean) => setBadValues((b) => (!!b[id] === bad ? b : { ...b, [id]: bad }));
  const rowsNow = useRef(rows);
  rowsNow.current = rows;
  /** The answer the server holds for a row, as typed. */
  const serverDraft = (id: string) => {
    const row = rowsNow.current.find((r) => r.id === id);
    return row ? draftOf(row) : undefined;
  };
  /** Whether an answer differs from what the server holds only by a value that is not a number: nothing to send. */
  const onlyBadValue = (id: string, draft: Draft) => {
    const server = serverDraft(id);
    return !!server && !isNumber(draft.measuredValue) && sameAnswer(sendable(draft, server.measuredValue), server);
  };
  /** The server's answer laid under what is on screen: the user's own fields stay as typed. */
  function merge(id: string, server: Draft, current: Draft | undefined): Draft {
    const mine = edited.current.get(id);
    const next = { ...server };
    if (current)
      for (const f of FIELDS) {
        // Back to what the server holds: no longer the user's own.
        if (sameField(f, current, server)) mine?.delete(f);
        if (mine?.has(f) || focused.current === `${id}:${f}`) Object.assign(next, { [f]: current[f] });
      }
    return next;
  }
  /** The server's rows, laid under what is on screen. */
  const take = (list: OrderCheckpoint[]) => {
    setRows((all) => all.map((r) => list.find((c) => c.id === r.id) ?? r));
    setDrafts((d) => ({ ...d, ...Object.fromEntries(list.map((c) => [c.id, merge(c.id, draftOf(c), d[c.id])])) }));
  };
  const markEdited = (id: string, fields: Field[]) => {
    const set = edited.current.get(id) ?? new Set<Field>();
    for (const f of fields) set.add(f);
    edited.current.set(id, set);
  };

  const versions = useRef(new Map(props.checkpoints.map((c) => [c.id, c.version])));

  // Answers not sent yet, per user and order.
  const [outbox] = useState(() => unsentAnswers(`atelier:non-enregistre:${props.userId}:${props.orderId}`));

  async function send(id: string, draft: Draft) {
    // Written ahead: a page left while this is on its way finds it again (and its version tells whether it arrived).
    outbox.put({ id, version: versions.current.get(id) ?? 0, draft });
    const payload = sendable(draft, serverDraft(id)?.measuredValue ?? '');
    if (onlyBadValue(id, draft)) {
      // Only a value that is not a number differs from what the server holds: nothing to send.
      outbox.settle(id, draft);
      setStates((s) => (s[id]?.status === 'unsent' ? { ...s, [id]: { status: 'saved' } } : s));
      return;
    }
    setStates((s) => ({ ...s, [id]: { status: 'saving' } }));
    try {
      const { answerOrderCheckpoint: saved } = await graphqlRequest(ANSWER, {
        id,
        v: versions.current.get(id) ?? 0,
        o: { checkResult: payload.checkResult, measuredValue: payload.measuredValue, comment: payload.comment },
      });
      versions.current.set(id, saved.version);
      outbox.settle(id, draft);
      // What was typed since this left (another field, more letters) stays as it is on screen.
      take([saved]);
      setStates((s) => ({ ...s, [id]: { status: 'saved' } }));
    } catch (error) {
      if (!(error instanceof ClientError)) {
        // No answer from the server (a dead spot, the server away): kept, and sent when it is back.
        setStates((s) => ({ ...s, [id]: { status: 'unsent', message: labels.unsent } }));
        return;
      }
      const refusal = apiErrorOf(error);
      const { message, fields } = refusal;
      if (hasReason(refusal, 'stale')) {
        // A colleague answered first: show their answer (the message says so); choosing again replaces it.
        const fresh = await graphqlRequest(CURRENT, { o: props.orderId }).catch(() => null);
        const theirs = fresh?.repairOrder?.checkpoints.find((c) => c.id === id);
        if (theirs) {
          versions.current.set(id, theirs.version);
          outbox.settle(id);
          if (sameAnswer(draftOf(theirs), payload)) {
            // The first try did arrive (only its answer was lost): this one is already saved.
            take([theirs]);
            setStates((s) => ({ ...s, [id]: { status: 'saved' } }));
            return;
          }
          saves.forget(id);
          conflict(theirs, draft, message ?? labels.stale);
          return;
        }
      }
      // The entry stays as typed; the message says why, the button tries again.
      outbox.settle(id);
      if (hasCode(refusal, 'conflict') && hasReason(refusal, 'closed')) setClosed(true);
      const text = fields ? Object.values(fields)[0] : hasCode(refusal, 'conflict') && message ? message : '';
      setStates((s) => ({ ...s, [id]: { status: 'failed', message: text || labels.failed } }));
    }
  }
  /** A colleague's answer shown in place of one typed over an older version; the user's own stays visible, to apply again. */
  function conflict(theirs: OrderCheckpoint, mine: Draft, message: string) {
    edited.current.delete(theirs.id);
    take([theirs]);
    setStates((s) => ({ ...s, [theirs.id]: { status: 'conflict', message, mine } }));
  }
  // One save at a time per row, each with the version the previous one returned (else the row's
  // own second save would look like a colleague's); `send` is read at call time, with this render's props.
  const sendNow = useRef(send);
  sendNow.current = send;
  const [saves] = useState(() => serialSaves<string, Draft>((id, draft) => sendNow.current(id, draft)));

  // Sends the unsent answers one after the other, oldest first; stops at the first still unsent.
  const flushing = useRef(false);
  async function flush() {
    if (flushing.current) return;
    flushing.current = true;
    try {
      for (const unsent of outbox.values()) {
        const latest = outbox.get(unsent.id);
        if (!latest) continue;
        await saves.save(unsent.id, latest.draft);
        if (outbox.has(unsent.id)) break;
      }
    } finally {
      flushing.current = false;
    }
  }
  const flushNow = useRef(flush);
  flushNow.current = flush;

  // Answers left unsent by an earlier visit come back on screen, still marked, and go when they can;
  // one whose checkpoint changed since (it did arrive, or a colleague answered) is dropped.
  function resume() {
    const restored = outbox.restore(props.checkpoints);
    for (const u of restored) {
      markEdited(u.id, FIELDS);
      if (!isNumber(u.draft.measuredValue)) markBad(u.id, true);
    }
    if (restored.length) {
      setDrafts((d) => ({ ...d, ...Object.fromEntries(restored.map((u) => [u.id, u.draft])) }));
      setStates((s) => ({ ...s, ...Object.fromEntries(restored.map((u) => [u.id, { status: 'unsent' as const, message: labels.unsent }])) }));
      void flushNow.current();
    }
    const retry = () => outbox.size > 0 && void flushNow.current();
    const timer = window.setInterval(retry, RETRY_EVERY_MS);
    window.addEventListener('online', retry);
    const toast = sessionStorage.getItem(CLOSED_TOAST);
    if (toast === props.orderId) {
      sessionStorage.removeItem(CLOSED_TOAST);
      showToast({ type: 'success', message: labels.closed });
    }
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('online', retry);
    };
  }
  const resumeNow = useRef(resume);
  resumeNow.current = resume;
  // Once, when the island runs.
  useEffect(() => (hydrated ? resumeNow.current() : undefined), [hydrated]);

  /** What colleagues answer, live (and this user's own saves, echoed). */
  const onLive = useRef((_data: { orderCheckpoints: OrderCheckpoint[] }) => {});
  onLive.current = (data) => {
    // An update older than a save's own reply is not news.
    const fresh = data.orderCheckpoints.filter((c) => c.version >= (versions.current.get(c.id) ?? 0));
    for (const c of fresh) {
      if (saves.isSaving(c.id)) continue;
      const unsent = outbox.get(c.id);
      if (unsent && sameAnswer(draftOf(c), sendable(unsent.draft, draftOf(c).measuredValue))) {
        // An unsent answer the server already holds (its reply was lost): saved, not sent again.
        outbox.settle(c.id);
        setStates((s) => ({ ...s, [c.id]: { status: 'saved' } }));
      } else if (unsent && statesNow.current[c.id]?.status === 'unsent' && c.version !== unsent.version && c.version !== unsent.after) {
        // A colleague answered while this one waited for the network: theirs shown, this one kept visible.
        outbox.settle(c.id);
        saves.forget(c.id);
        conflict(c, unsent.draft, labels.stale);
      }
      versions.current.set(c.id, c.version);
    }
    take(fresh);
  };
  useEffect(() => {
    if (!hydrated) return;
    return graphqlSubscribe(
      LIVE,
      { o: props.orderId },
      (data) => onLive.current(data),
      () => undefined,
    );
  }, [hydrated, props.orderId]);

  /** Closed or reopened elsewhere: said, and what was typed and not saved stays on screen with the reason. */
  const onStatus = useRef((_now: boolean) => {});
  onStatus.current = (now: boolean) => {
    // This user's own closing on its way: its reply (or its loss) decides what the page shows.
    if (closeSending.current) {
      statusWhileClosing.current ||= now;
      return;
    }
    // Closed after this user's closing lost its reply: that closing arrived.
    if (now && closeLost.current) return showClosed();
    if (now === closed) return;
    setClosed(now);
    setFollowed(true);
    if (now) {
      setClosing(false);
      for (const { id } of rows)
        if (edited.current.get(id)?.size || outbox.has(id)) setStates((s) => ({ ...s, [id]: { status: 'failed', message: labels.unsavedClosed } }));
    }
  };
  useEffect(() => {
    if (!hydrated) return;
    return graphqlSubscribe(
      STATUS,
      { o: props.orderId },
      (data) => onStatus.current(data.repairOrderStatus === 'CLOSED'),
      () => undefined,
    );
  }, [hydrated, props.orderId]);

  useEffect(() => {
    if (closing) dialog.current?.showModal();
  }, [closing]);

  /** Kept in this browser at once, even while an earlier save of the row is on its way: a page left now loses nothing. */
  function keepTyped(id: string, draft: Draft) {
    const base = versions.current.get(id) ?? 0;
    outbox.put({ id, version: base, ...(saves.isSaving(id) ? { after: base + 1 } : {}), draft });
  }

  function save(id: string, draft: Draft) {
    markBad(id, !isNumber(draft.measuredValue));
    // Only the value differs, and it is not a number: nothing to send, the field says why.
    if (statesNow.current[id]?.status !== 'unsent' && onlyBadValue(id, draft)) return;
    keepTyped(id, draft);
    void saves.save(id, draft);
  }

  const change = (id: string, patch: Partial<Draft>, now: boolean) => {
    markEdited(id, Object.keys(patch) as Field[]);
    const next = { ...drafts[id]!, ...patch };
    setDrafts((d) => ({ ...d, [id]: next }));
    // Corrected: the message goes at once (it comes only when the field is left or the row saved).
    if (isNumber(next.measuredValue)) markBad(id, false);
    if (now) save(id, next);
    // Kept as typed, before the field is even left: a tab tapped at once loses nothing.
    else keepTyped(id, next);
  };

  const answered = rows.filter((r) => r.checkResult !== null).length;
  const remaining = rows.length - answered;
  const nonConform = rows.filter((r) => r.checkResult === 'nok');
  const nonConformText = labels[nonConform.length < 2 ? 'nonConformOne' : 'nonConform'].replace('{{count}}', String(nonConform.length));
  /** A field left: saved if it differs from what the server has (with or without a result). */
  const leave = (row: OrderCheckpoint, current: Draft) => {
    focused.current = '';
    // Kept as it was only for having the focus: now the server's.
    const draft = merge(row.id, draftOf(row), current);
    setDrafts((d) => ({ ...d, [row.id]: draft }));
    if (!canAnswer) return;
    if (!sameAnswer(draft, draftOf(row)) || states[row.id]?.status === 'unsent') save(row.id, draft);
    // Typed back to what is saved: nothing left to send.
    else if (!saves.isSaving(row.id)) outbox.settle(row.id, draft);
  };

  /** The closed order's page, drawn again: header, closing line and SPEC §8's «OR clôturé». */
  function showClosed() {
    sessionStorage.setItem(CLOSED_TOAST, props.orderId);
    window.location.assign(props.action);
  }
  // The closing on its way, what the live status said meanwhile, and whether a closing got no reply
  // (it may have arrived: a retry the server refuses as closed, or the live status, says it did).
  const closeSending = useRef(false);
  const statusWhileClosing = useRef(false);
  const closeLost = useRef(false);
  async function close(form: HTMLFormElement) {
    setCloseError('');
    closeSending.current = true;
    statusWhileClosing.current = false;
    let failure: unknown;
    try {
      await graphqlRequest(CLOSE_ORDER, { id: props.orderId, c: String(new FormData(form).get('comment') ?? '') });
      return showClosed();
    } catch (error) {
      failure = error;
    }
    const refusal = apiErrorOf(failure);
    if (!(failure instanceof ClientError)) {
      // No reply (walk31 F12): closed now means this closing arrived; else the dialog keeps what was typed.
      const now =
        statusWhileClosing.current ||
        (await graphqlRequest(STATUS_NOW, { o: props.orderId }).then(
          (data) => data.repairOrder?.status === 'CLOSED',
          () => false,
        ));
      if (now) return showClosed();
      closeLost.current = true;
    } else if (closeLost.current && hasCode(refusal, 'conflict') && hasReason(refusal, 'closed')) return showClosed();
    closeSending.current = false;
    setCloseError((failure instanceof ClientError && refusal.message) || labels.failed);
    // What the live status said while this was on its way, now applied.
    if (statusWhileClosing.current) onStatus.current(true);
  }

  return (
    <div className="flex flex-col gap-6">
      {followed && (
        <p role="alert" className="alert-info">
          {closed ? labels.closedMeanwhile : labels.reopenedMeanwhile}{' '}
          <a href={props.action} className="link">
            {labels.refresh}
          </a>
        </p>
      )}
      {props.procedures.map((procedure) => (
        <section key={procedure.id} aria-label={procedure.title} className="flex flex-col gap-3">
          <h4 className="font-semibold">{procedure.title}</h4>
          <ol className="flex flex-col gap-3">
            {rows
              .filter((r) => r.orderProcedureId === procedure.id)
              .map((row) => {
                const draft = drafts[row.id] ?? draftOf(row);
                const state = states[row.id] ?? { status: 'idle' };
                const badValue = !!badValues[row.id];
                const saved = labels.saved.replace('{{time}}', time(row.answeredAt, labels)).replace('{{name}}', row.answeredByName ?? '');
                const status =
                  state.status === 'saving'
                    ? labels.saving
                    : state.status === 'failed' || state.status === 'conflict' || state.status === 'unsent'
                      ? state.message
                      : row.checkResult
                        ? saved
                        : row.answeredAt && (row.measuredValue !== null || row.comment)
                          ? labels.partSaved.replace('{{time}}', time(row.answeredAt, labels))
                          : labels.unanswered;
                return (
                  <li
                    key={row.id}
                    id={`point-${row.id}`}
                    data-unsent={state.status === 'unsent' ? '' : undefined}
                    className="card flex flex-col gap-3 data-[unsent]:border-danger"
                  >
                    <form
                      method="post"
                      action={`${props.action}&action=point&id=${row.id}&version=${row.version}`}
                      className="flex flex-col gap-3"
                      onSubmit={(event) => {
                        event.preventDefault();
                        save(row.id, draft);
                      }}
                    >
                      <fieldset disabled={!canAnswer} className="flex flex-col gap-2">
                        <legend className="text-base font-bold">
                          {row.position}. {row.name}
                        </legend>
                        {row.description && <p className="text-sm text-muted">{row.description}</p>}
                        <div role="radiogroup" aria-label={`${labels.result} : ${row.name}`} className="grid grid-cols-2 gap-2 sm:grid-cols-5">
                          {checkResults.map((result) => (
                            <label
                              key={result}
                              // Drawn from the radio's own state, so it shows right before hydration too.
                              // A closed order's (or a reader's) results read as a record: flat, not pressable.
                              className="flex min-h-14 cursor-pointer items-center justify-center rounded-[8px] border-2 border-line bg-surface px-2 text-center text-sm font-semibold has-[:checked]:border-primary has-[:checked]:bg-primary has-[:checked]:text-white has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-primary has-[:disabled]:cursor-default has-[:disabled]:border-dashed has-[:disabled]:bg-transparent has-[:disabled]:font-normal has-[:disabled]:text-muted has-[:checked:disabled]:border-solid has-[:checked:disabled]:bg-primary-soft has-[:checked:disabled]:font-bold has-[:checked:disabled]:text-primary-strong"
                            >
                              <input
                                type="radio"
                                name="checkResult"
                                value={result}
                                checked={draft.checkResult === result}
                                onChange={() => change(row.id, { checkResult: result }, true)}
                                className="sr-only"
                              />
                              {labels.results[result]}
                            </label>
                          ))}
                        </div>
                        <div className="grid gap-2 sm:grid-cols-[12rem_1fr]">
                          <div className="flex flex-col gap-1">
                            <label className="flex flex-col gap-1 text-sm font-semibold">
                              {labels.value}
                              <input
                                name="measuredValue"
                                inputMode="decimal"
                                className="field-input min-h-12 text-base"
                                value={draft.measuredValue}
                                aria-invalid={badValue || (state.status === 'failed' && state.message === labels.invalidNumber) ? 'true' : undefined}
                                aria-describedby={badValue ? `valeur-${row.id}` : undefined}
                                onChange={(e) => change(row.id, { measuredValue: e.target.value }, false)}
                                onFocus={() => (focused.current = `${row.id}:measuredValue`)}
                                onBlur={() => leave(row, draft)}
                              />
                            </label>
                            {badValue && (
                              <p id={`valeur-${row.id}`} className="text-sm text-danger">
                                {labels.invalidNumber}
                              </p>
                            )}
                          </div>
                          <label className="flex flex-col gap-1 text-sm font-semibold">
                            {labels.comment}
                            <input
                              name="comment"
                              className="field-input min-h-12 text-base"
                              value={draft.comment}
                              onChange={(e) => change(row.id, { comment: e.target.value }, false)}
                              onFocus={() => (focused.current = `${row.id}:comment`)}
                              onBlur={() => leave(row, draft)}
                            />
                          </label>
                        </div>
                      </fieldset>
                      <div className="flex flex-wrap items-center gap-3">
                        <p
                          role="status"
                          className={`text-sm ${state.status === 'failed' || state.status === 'conflict' || state.status === 'unsent' ? 'font-semibold text-danger' : 'text-muted'}`}
                        >
                          {status}
                        </p>
                        {state.status === 'conflict' && <p className="text-sm">{saved}</p>}
                        {/* The island's retry (not for a value typed wrong: the same try would fail again); without JavaScript the row's one button is «Enregistrer». */}
                        {hydrated && (state.status === 'unsent' || (state.status === 'failed' && state.message !== labels.invalidNumber)) && canAnswer && (
                          <button type="submit" className="btn btn-secondary min-h-12">
                            {labels.retry}
                          </button>
                        )}
                        {!hydrated && canAnswer && (
                          <button type="submit" className="btn btn-primary min-h-12">
                            {labels.save}
                          </button>
                        )}
                      </div>
                    </form>
                    {props.photos[row.id] && (
                      // biome-ignore lint/security/noDangerouslySetInnerHtml: the server's own PhotoGrid markup (React-escaped), no user HTML
                      <div dangerouslySetInnerHTML={{ __html: props.photos[row.id]! }} />
                    )}
                    {state.mine && state.status === 'conflict' && (
                      <div className="flex flex-wrap items-center gap-3 border-t border-line pt-3">
                        <p className="text-sm font-semibold">
                          {labels.mine.replace(
                            '{{answer}}',
                            [state.mine.measuredValue, state.mine.comment, state.mine.checkResult && labels.results[state.mine.checkResult]]
                              .filter(Boolean)
                              .join(' · '),
                          )}
                        </p>
                        {canAnswer && (
                          <button type="button" className="btn btn-secondary min-h-12" onClick={() => change(row.id, state.mine!, true)}>
                            {labels.takeBack}
                          </button>
                        )}
                      </div>
                    )}
                  </li>
                );
              })}
          </ol>
        </section>
      ))}
      {props.canFollow && !closed && (
        <div className="card flex flex-wrap items-center justify-between gap-3">
          <p className="font-semibold">
            {remaining > 0 ? labels[remaining < 2 ? 'remainingOne' : 'remaining'].replace('{{count}}', String(remaining)) : labels.closeHint}
          </p>
          {remaining === 0 && hydrated && (
            <button type="button" className="btn btn-primary min-h-12" onClick={() => setClosing(true)}>
              {labels.close}
            </button>
          )}
        </div>
      )}
      {closing && (
        <dialog ref={dialog} aria-labelledby="cloture-titre" className="card m-auto w-full max-w-md backdrop:bg-black/40" onClose={() => setClosing(false)}>
          <form
            method="dialog"
            className="flex flex-col gap-4"
            onSubmit={(event) => {
              event.preventDefault();
              void close(event.currentTarget);
            }}
          >
            <h2 id="cloture-titre" className="text-lg font-bold">
              {labels.closeTitle}
            </h2>
            {nonConform.length > 0 && (
              <div className="alert-error flex flex-col gap-1" role="note" aria-label={nonConformText}>
                <p className="font-semibold">{nonConformText}</p>
                <ul className="ml-5 list-disc">
                  {nonConform.map((r) => (
                    <li key={r.id}>{r.name}</li>
                  ))}
                </ul>
              </div>
            )}
            <label className="flex flex-col gap-1 text-sm font-semibold">
              {labels.closeComment}
              <textarea name="comment" rows={3} maxLength={2000} className="field-input" />
            </label>
            {closeError && (
              <p role="alert" className="alert-error">
                {closeError}
              </p>
            )}
            <div className="flex justify-end gap-2">
              <button type="button" className="btn btn-secondary min-h-12" onClick={() => dialog.current?.close()}>
                {labels.cancel}
              </button>
              <button type="submit" className="btn btn-primary min-h-12">
                {labels.closeConfirm}
              </button>
            </div>
          </form>
        </dialog>
      )}
    </div>
  );
}
