// The checkpoints of an order's validated procedures, answered on the shop floor (SPEC §2.7):
// a result is saved as soon as it is chosen, a value or a comment when the field is left; each
// row says "saved" or "failed" (the entry stays, with a retry), and follows what colleagues
// answer on other terminals. Large targets, plain radios and fields: gloves and keyboards both
// work. Rendered on the server as forms that post without JavaScript. The labels come as props:
// the island ships no message catalogue.
import { useEffect, useRef, useState } from 'react';
import { checkResults, type CheckResult } from '#lib/repair-orders/check-results.ts';
import { dayOf, formatDate, formatDayMonth, formatTime, isSameDay, workshopToday } from '#lib/format.ts';
import { apiErrorOf, graphqlRequest, graphqlSubscribe } from '#lib/graphql-client.ts';
import { graphql } from '#lib/graphql.ts';
import { CheckpointFields, CLOSE_ORDER, type OrderCheckpoint } from '#lib/repair-orders/checkpoints.ts';
import { serialSaves } from '#lib/serial-saves.ts';
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
  invalidNumber: string;
  close: string;
  closeTitle: string;
  closeHint: string;
  closeComment: string;
  closeConfirm: string;
  cancel: string;
  remaining: string;
  /** 'à {{hour}}' */
  todayAt: string;
  /** 'le {{day}} à {{hour}}' */
  dayAt: string;
};

type Props = {
  orderId: string;
  checkpoints: OrderCheckpoint[];
  /** Group titles, by order procedure id, in order. */
  procedures: { id: string; title: string }[];
  canAnswer: boolean;
  canClose: boolean;
  /** Where a form posts without JavaScript (the procedure tab's URL). */
  action: string;
  labels: CheckpointLabels;
  /** A post without JavaScript that failed: that row comes back as typed, with the reason. */
  failure?: { id: string; values: Draft; message: string } | null;
};

export type Draft = { checkResult: CheckResult | null; measuredValue: string; comment: string };
type RowState = { status: 'idle' | 'saving' | 'saved' | 'failed' | 'conflict'; message?: string };

const ANSWER = graphql(
  `mutation($id: uuid!, $v: Int!, $o: order_checkpoints_input!) { answerOrderCheckpoint(id: $id, version: $v, object: $o) { ...CheckpointFields } }`,
  [CheckpointFields],
);
const LIVE = graphql(`subscription($o: uuid!) { orderCheckpoints(repairOrderId: $o) { ...CheckpointFields } }`, [CheckpointFields]);
const CURRENT = graphql(`query($o: uuid!) { repairOrder(id: $o) { checkpoints { ...CheckpointFields } } }`, [CheckpointFields]);

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
const isNumber = (text: string) => text.trim() === '' || /^[-+]?\d+([.,]\d+)?$/.test(text.trim().replace(/\s/g, ''));

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
  const dialog = useRef<HTMLDialogElement>(null);
  // Rows the user is changing: a colleague's live update does not overwrite what is being typed.
  const busy = useRef(new Set<string>(props.failure ? [props.failure.id] : []));

  const versions = useRef(new Map(props.checkpoints.map((c) => [c.id, c.version])));

  async function send(id: string, draft: Draft) {
    busy.current.add(id);
    setStates((s) => ({ ...s, [id]: { status: 'saving' } }));
    try {
      const { answerOrderCheckpoint: saved } = await graphqlRequest(ANSWER, {
        id,
        v: versions.current.get(id) ?? 0,
        o: { checkResult: draft.checkResult, measuredValue: draft.measuredValue, comment: draft.comment },
      });
      versions.current.set(id, saved.version);
      setRows((all) => all.map((r) => (r.id === id ? saved : r)));
      setStates((s) => ({ ...s, [id]: { status: 'saved' } }));
      if (!saves.isWaiting(id)) busy.current.delete(id);
    } catch (error) {
      const { message, code, reason, fields } = apiErrorOf(error);
      if (reason === 'stale') {
        // A colleague answered first: show their answer (the message says so); choosing again replaces it.
        const fresh = await graphqlRequest(CURRENT, { o: props.orderId }).catch(() => null);
        const theirs = fresh?.repairOrder?.checkpoints.find((c) => c.id === id);
        if (theirs) {
          versions.current.set(id, theirs.version);
          busy.current.delete(id);
          saves.forget(id);
          setRows((all) => all.map((r) => (r.id === id ? theirs : r)));
          setDrafts((d) => ({ ...d, [id]: draftOf(theirs) }));
          setStates((s) => ({ ...s, [id]: { status: 'conflict', message } }));
          return;
        }
      }
      // The entry stays as typed; the message says why, the button tries again.
      const text = fields ? Object.values(fields)[0] : code === 'conflict' && message ? message : '';
      setStates((s) => ({ ...s, [id]: { status: 'failed', message: text || labels.failed } }));
    }
  }
  // One save at a time per row, each with the version the previous one returned (else the row's
  // own second save would look like a colleague's); `send` is read at call time, with this render's props.
  const sendNow = useRef(send);
  sendNow.current = send;
  const [saves] = useState(() => serialSaves<string, Draft>((id, draft) => sendNow.current(id, draft)));

  useEffect(() => {
    if (!hydrated) return;
    return graphqlSubscribe(
      LIVE,
      { o: props.orderId },
      (data) => {
        for (const c of data.orderCheckpoints) if (!saves.isSaving(c.id)) versions.current.set(c.id, c.version);
        setRows(data.orderCheckpoints);
        setDrafts((current) => ({
          ...current,
          ...Object.fromEntries(data.orderCheckpoints.filter((c) => !busy.current.has(c.id)).map((c) => [c.id, draftOf(c)])),
        }));
      },
      () => undefined,
    );
  }, [hydrated, props.orderId, saves]);

  useEffect(() => {
    if (closing) dialog.current?.showModal();
  }, [closing]);

  function save(id: string, draft: Draft) {
    if (!draft.checkResult) return;
    if (!isNumber(draft.measuredValue)) {
      setStates((s) => ({ ...s, [id]: { status: 'failed', message: labels.invalidNumber } }));
      return;
    }
    void saves.save(id, draft);
  }

  const change = (id: string, patch: Partial<Draft>, now: boolean) => {
    busy.current.add(id);
    const next = { ...drafts[id]!, ...patch };
    setDrafts((d) => ({ ...d, [id]: next }));
    if (now) save(id, next);
  };

  const answered = rows.filter((r) => r.checkResult !== null).length;
  const remaining = rows.length - answered;

  async function close(form: HTMLFormElement) {
    setCloseError('');
    try {
      await graphqlRequest(CLOSE_ORDER, { id: props.orderId, c: String(new FormData(form).get('comment') ?? '') });
      window.location.assign(props.action);
    } catch (error) {
      setCloseError(apiErrorOf(error).message ?? labels.failed);
    }
  }

  return (
    <div className="flex flex-col gap-6">
      {props.procedures.map((procedure) => (
        <section key={procedure.id} aria-label={procedure.title} className="flex flex-col gap-3">
          <h4 className="font-semibold">{procedure.title}</h4>
          <ol className="flex flex-col gap-3">
            {rows
              .filter((r) => r.orderProcedureId === procedure.id)
              .map((row) => {
                const draft = drafts[row.id] ?? draftOf(row);
                const state = states[row.id] ?? { status: 'idle' };
                const status =
                  state.status === 'saving'
                    ? labels.saving
                    : state.status === 'failed' || state.status === 'conflict'
                      ? state.message
                      : row.checkResult
                        ? labels.saved.replace('{{time}}', time(row.answeredAt, labels)).replace('{{name}}', row.answeredByName ?? '')
                        : labels.unanswered;
                return (
                  <li key={row.id} id={`point-${row.id}`} className="card flex flex-col gap-3">
                    <form
                      method="post"
                      action={`${props.action}&action=point&id=${row.id}&version=${row.version}`}
                      className="flex flex-col gap-3"
                      onSubmit={(event) => {
                        event.preventDefault();
                        save(row.id, draft);
                      }}
                    >
                      <fieldset disabled={!props.canAnswer} className="flex flex-col gap-2">
                        <legend className="text-base font-bold">
                          {row.position}. {row.name}
                        </legend>
                        {row.description && <p className="text-sm text-muted">{row.description}</p>}
                        <div role="radiogroup" aria-label={`${labels.result} : ${row.name}`} className="grid grid-cols-2 gap-2 sm:grid-cols-5">
                          {checkResults.map((result) => (
                            <label
                              key={result}
                              // Drawn from the radio's own state, so it shows right before hydration too.
                              className="flex min-h-14 cursor-pointer items-center justify-center rounded-[8px] border-2 border-line bg-surface px-2 text-center text-sm font-semibold has-[:checked]:border-primary has-[:checked]:bg-primary has-[:checked]:text-white has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-primary"
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
                          <label className="flex flex-col gap-1 text-sm font-semibold">
                            {labels.value}
                            <input
                              name="measuredValue"
                              inputMode="decimal"
                              className="field-input min-h-12 text-base"
                              value={draft.measuredValue}
                              aria-invalid={state.status === 'failed' && state.message === labels.invalidNumber ? 'true' : undefined}
                              onChange={(e) => change(row.id, { measuredValue: e.target.value }, false)}
                              onBlur={() => draft.checkResult && draft.measuredValue !== draftOf(row).measuredValue && save(row.id, draft)}
                            />
                          </label>
                          <label className="flex flex-col gap-1 text-sm font-semibold">
                            {labels.comment}
                            <input
                              name="comment"
                              className="field-input min-h-12 text-base"
                              value={draft.comment}
                              onChange={(e) => change(row.id, { comment: e.target.value }, false)}
                              onBlur={() => draft.checkResult && draft.comment !== row.comment && save(row.id, draft)}
                            />
                          </label>
                        </div>
                      </fieldset>
                      <div className="flex flex-wrap items-center gap-3">
                        <p
                          role="status"
                          className={`text-sm ${state.status === 'failed' || state.status === 'conflict' ? 'font-semibold text-danger' : 'text-muted'}`}
                        >
                          {status}
                        </p>
                        {state.status === 'failed' && (
                          <button type="submit" className="btn btn-secondary min-h-12">
                            {labels.retry}
                          </button>
                        )}
                        {!hydrated && props.canAnswer && (
                          <button type="submit" className="btn btn-primary min-h-12">
                            {labels.save}
                          </button>
                        )}
                      </div>
                    </form>
                  </li>
                );
              })}
          </ol>
        </section>
      ))}
      {props.canClose && (
        <div className="card flex flex-wrap items-center justify-between gap-3">
          <p className="font-semibold">{remaining > 0 ? labels.remaining.replace('{{count}}', String(remaining)) : labels.closeHint}</p>
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
