// Messages are translated once per key and variables (decision 074): the same question gets
// i18next's answer, another variable another answer, however many times and in whatever order.
import { describe, expect, it } from 'vitest';
import { t } from '#lib/i18n.ts';

describe('the catalogue asked again', () => {
  it('answers with the variables of each call, not those of an earlier one', () => {
    for (let i = 0; i < 2; i++) {
      expect(t('validation.minLength', { min: 8 })).toBe('Minimum 8 caractères');
      expect(t('validation.minLength', { min: 12 })).toBe('Minimum 12 caractères');
      expect(t('validation.minLength', { min: '12' })).toBe('Minimum 12 caractères');
      expect(t('errors.fileImport', { file: 'courbe.csv' })).toBe("Erreur lors de l'import du fichier courbe.csv");
      expect(t('errors.fileImport', { file: 'mesures.csv' })).toBe("Erreur lors de l'import du fichier mesures.csv");
    }
  });

  it('still answers after more distinct questions than it keeps', () => {
    for (let n = 0; n < 12_000; n++) expect(t('validation.minLength', { min: n })).toBe(`Minimum ${n} caractères`);
    expect(t('validation.minLength', { min: 3 })).toBe('Minimum 3 caractères');
  });
});
