// The text input of SPEC §5: label with '(obligatoire)' or '(automatique)', placeholder, type,
// autocomplete (off by default), disabled, read-only, clearable, icons at start and end, the
// error beneath in the danger colour, and read mode. Rendered by .astro pages without
// JavaScript, and by islands. A date is typed DD/MM/YYYY whatever the browser's language (a
// native date field would follow it: MM/DD/YYYY under an English browser); the schemas read both.
import { mdiClose } from '@mdi/js';
import { useId, useRef, type InputHTMLAttributes, type Ref } from 'react';
import { t } from '#lib/i18n.ts';
import { Icon } from './Icon.tsx';

export type TextInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'size'> & {
  label?: string;
  required?: boolean;
  automatic?: boolean;
  error?: string;
  clearable?: boolean;
  startIcon?: string;
  endIcon?: string;
  mode?: 'edit' | 'read';
  onClear?: () => void;
  ref?: Ref<HTMLInputElement>;
};

/** An ISO day as typed in a date field: 2026-02-28 → 28/02/2026; anything else as it is. */
const frenchDay = (value: unknown) => (typeof value === 'string' ? value.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$3/$2/$1') : value);

/**
 * The forms of a day isoDay (page-query.ts) reads, for the browser's own check: day first, parted
 * by / . - or a space or not at all (a number pad has no «/»), or ISO. No character class: the
 * pattern compiles with the `v` flag, where «/» and «-» in one need escaping.
 */
const DAY_PATTERN = '\\s*(?:\\d{1,2}(?:/|\\.|-| )\\d{1,2}(?:/|\\.|-| )(?:\\d{2}|\\d{4})|\\d{6,8}|\\d{4}-\\d{2}-\\d{2})\\s*';

export function TextInput(props: TextInputProps) {
  const {
    label,
    required,
    automatic,
    error,
    clearable,
    startIcon,
    endIcon,
    mode = 'edit',
    onClear,
    id,
    type: asked = 'text',
    autoComplete = 'off',
    readOnly,
    className,
    ref,
    ...given
  } = props;
  const date = asked === 'date';
  const type = date ? 'text' : asked;
  const rest = date
    ? {
        inputMode: 'numeric' as const,
        placeholder: t('input.datePlaceholder'),
        // What isoDay reads (page-query.ts): the number pad's forms too; the server says what is wrong.
        pattern: DAY_PATTERN,
        ...given,
        min: undefined,
        max: undefined,
        defaultValue: frenchDay(given.defaultValue) as string | undefined,
        value: frenchDay(given.value) as string | undefined,
      }
    : given;
  const generated = useId();
  const inputId = id ?? generated;
  const errorId = `${inputId}-error`;
  const local = useRef<HTMLInputElement | null>(null);
  const read = mode === 'read' || readOnly;
  const setRef = (node: HTMLInputElement | null) => {
    local.current = node;
    if (typeof ref === 'function') ref(node);
    else if (ref) (ref as { current: HTMLInputElement | null }).current = node;
  };
  return (
    <div className={`flex flex-col gap-1 ${className ?? ''}`}>
      {label ? (
        <label htmlFor={inputId} className={`text-sm font-semibold ${error ? 'text-danger' : 'text-ink'}`}>
          {label}
          {/* A real space: the accessible name reads "Nom (obligatoire)". One marker (SPEC §5): a
              field filled automatically says so, even when it may not be left empty. */}
          {required && !automatic ? <span className="font-normal text-muted"> {t('input.required')}</span> : null}
          {automatic ? <span className="font-normal text-muted"> {t('input.automatic')}</span> : null}
        </label>
      ) : null}
      <div className="relative flex items-center">
        {startIcon ? <Icon path={startIcon} className="pointer-events-none absolute left-3 text-muted" /> : null}
        <input
          ref={setRef}
          id={inputId}
          type={type}
          autoComplete={autoComplete}
          readOnly={read}
          required={required}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          className={`field-input ${startIcon ? 'pl-10' : ''} ${endIcon || clearable ? 'pr-10' : ''} ${read ? 'bg-readonly' : ''}`}
          {...rest}
        />
        {clearable && !read && !rest.disabled ? (
          <button
            type="button"
            className="absolute right-2 rounded p-1 text-muted hover:text-ink"
            aria-label={t('input.clear')}
            onClick={() => {
              if (local.current) {
                const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
                setter?.call(local.current, '');
                local.current.dispatchEvent(new Event('input', { bubbles: true }));
                local.current.focus();
              }
              onClear?.();
            }}
          >
            <Icon path={mdiClose} size={18} />
          </button>
        ) : endIcon ? (
          <Icon path={endIcon} className="pointer-events-none absolute right-3 text-muted" />
        ) : null}
      </div>
      {error ? (
        <p id={errorId} className="text-sm text-danger">
          {error}
        </p>
      ) : null}
    </div>
  );
}
