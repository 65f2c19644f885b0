// Four segments, one filled per satisfied password rule (SPEC §5).
import { t } from '#lib/i18n.ts';
import { passwordStrength } from '#lib/auth/password.ts';

const colours = ['bg-danger', 'bg-danger', 'bg-amber-600', 'bg-success'];

export function PasswordStrength(props: { value: string }) {
  const count = passwordStrength(props.value);
  const label = t('updatePassword.strength', { count });
  return (
    // biome-ignore lint/a11y/useSemanticElements: <meter> cannot hold the labelled bars drawn inside
    <div
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={4}
      aria-valuenow={count}
      aria-valuetext={label}
      className="flex gap-1"
      data-strength={count}
    >
      {[0, 1, 2, 3].map((i) => (
        <span key={i} data-filled={i < count} className={`h-2 flex-1 rounded-full ${i < count ? colours[count - 1] : 'bg-line'}`} />
      ))}
    </div>
  );
}
