// The doctor and gearbox code forms, posted from a dossier's codes tab or the stock's codes
// tab: add a doctor code, add a gearbox code under one, delete either after a confirmation.
import { doctorCodeSchema, gearboxCodeSchema, type DoctorCode } from './gearboxes.ts';
import { formFailureOf } from '#lib/forms.server.ts';
import { t } from '#lib/i18n.ts';
import { isUuid } from '#lib/ids.ts';
import { fieldErrors, type FieldErrors } from '#lib/validation.ts';

export const CODE_ACTIONS = ['ajouter-code-doctor', 'ajouter-code-boite', 'supprimer-code'] as const;
export type CodesDraft = {
  doctorDraft: Record<string, string>;
  doctorErrors: FieldErrors;
  gearboxDraft: { doctorCodeId: string; code: string; error?: string };
  formError?: string;
};
export const emptyCodesDraft = (): CodesDraft => ({ doctorDraft: {}, doctorErrors: {}, gearboxDraft: { doctorCodeId: '', code: '' } });

/** Carries out the action; answers the toast to show on success, or what to show again. */
export async function postCodeAction(
  gearboxModels: App.Locals['services']['gearboxModels'],
  form: FormData,
  action: (typeof CODE_ACTIONS)[number],
  modelId: string,
  codes: DoctorCode[],
): Promise<{ done: string } | { draft: CodesDraft }> {
  const draft = emptyCodesDraft();
  try {
    if (action === 'ajouter-code-doctor') {
      draft.doctorDraft = Object.fromEntries(['code', 'businessName', 'tvsCode', 'engine'].map((k) => [k, String(form.get(k) ?? '').slice(0, 200)]));
      const parsed = doctorCodeSchema.safeParse(draft.doctorDraft);
      if (!parsed.success) draft.doctorErrors = fieldErrors(parsed.error);
      else {
        await gearboxModels.insertDoctorCode(modelId, parsed.data);
        return { done: t('gearboxes.codeAdded') };
      }
    } else if (action === 'ajouter-code-boite') {
      draft.gearboxDraft = { doctorCodeId: String(form.get('doctorCodeId') ?? ''), code: String(form.get('code') ?? '').slice(0, 200) };
      const parsed = gearboxCodeSchema.safeParse({ code: draft.gearboxDraft.code });
      if (!parsed.success) draft.gearboxDraft.error = fieldErrors(parsed.error).code;
      else if (codes.some((d) => d.id === draft.gearboxDraft.doctorCodeId)) {
        await gearboxModels.insertGearboxCode(draft.gearboxDraft.doctorCodeId, parsed.data.code);
        return { done: t('gearboxes.codeAdded') };
      }
    } else {
      const target = String(form.get('id') ?? '');
      if (isUuid(target)) {
        const isDoctorCode = codes.some((d) => d.id === target);
        await (isDoctorCode ? gearboxModels.removeDoctorCode(target) : gearboxModels.removeGearboxCode(target));
        return { done: t('gearboxes.codeDeleted') };
      }
    }
  } catch (error) {
    const text = formFailureOf(error, { fields: [] }).formError!;
    if (action === 'ajouter-code-doctor') draft.doctorErrors = { code: text };
    else if (action === 'ajouter-code-boite') draft.gearboxDraft.error = text;
    else draft.formError = text;
  }
  return { draft };
}
