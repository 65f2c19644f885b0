// A dialog over a dimmed page, for the islands (Headless UI: focus trap, Escape, labelling).
// Render it only while open: closed, Headless UI would still emit a styled hidden node that
// the Content-Security-Policy blocks.
import { Dialog, DialogPanel, DialogTitle } from '@headlessui/react';
import { type ReactNode, useEffect, useRef } from 'react';

export function Modal(props: {
  title: string;
  onClose: () => void;
  /** Where the focus goes on close. Headless UI, loaded with the dialog after the click, saw no
   * opener; and a click does not focus a button in Safari. */
  returnFocus: () => HTMLElement | null;
  role?: 'dialog' | 'alertdialog';
  children: ReactNode;
}) {
  const returnFocus = useRef(props.returnFocus);
  returnFocus.current = props.returnFocus;
  useEffect(() => () => returnFocus.current()?.focus(), []);
  return (
    <Dialog open onClose={props.onClose} role={props.role ?? 'dialog'} className="relative z-50">
      <div className="fixed inset-0 bg-black/40" aria-hidden="true" />
      <div className="fixed inset-0 flex items-center justify-center p-4">
        <DialogPanel className="card w-full max-w-md">
          <DialogTitle className="mb-4 text-lg font-bold">{props.title}</DialogTitle>
          {props.children}
        </DialogPanel>
      </div>
    </Dialog>
  );
}

/** Cancel and confirm, right-aligned, as every dialog ends. */
export function ModalActions(props: {
  cancelLabel: string;
  onCancel: () => void;
  submitLabel: string;
  busy?: boolean;
  danger?: boolean;
  onSubmit?: () => void;
}) {
  return (
    <div className="flex justify-end gap-2">
      <button type="button" className="btn btn-secondary" onClick={props.onCancel}>
        {props.cancelLabel}
      </button>
      <button
        type={props.onSubmit ? 'button' : 'submit'}
        className={`btn ${props.danger ? 'bg-danger text-white' : 'btn-primary'}`}
        disabled={props.busy}
        onClick={props.onSubmit}
      >
        {props.submitLabel}
      </button>
    </div>
  );
}
