/**
 * The id check of a stored user document (issue 27, item 6): only ids SkyCite gives a user's
 * document are loaded; a built-in document's id (or any other reserved one) never is.
 */
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_ID_CHARS, userDocumentIdProblem } from '../../src/core/userdocs/validate.js';

describe('the id of a stored user document', () => {
  it('accepts the ids userDocumentId makes', () => {
    expect(userDocumentIdProblem('user/lba-guidance-2')).toBeNull();
  });

  it("refuses a built-in document's id, even one in the user namespace", () => {
    expect(userDocumentIdProblem('user/easa-copy', new Set(['user/easa-copy']))).toBe('its id is that of a built-in document');
    expect(userDocumentIdProblem('easa-amc-gm-2019-947', new Set(['easa-amc-gm-2019-947']))).toBe('its id is that of a built-in document');
  });

  it('refuses ids outside the user namespace, empty, non-text or too long', () => {
    expect(userDocumentIdProblem('easa-amc-gm-2019-947')).toBe('its id is not one SkyCite gives your documents');
    expect(userDocumentIdProblem('user/Üpper case')).toBe('its id is not one SkyCite gives your documents');
    expect(userDocumentIdProblem('')).toBe('it has no id');
    expect(userDocumentIdProblem(42)).toBe('it has no id');
    expect(userDocumentIdProblem(`user/${'a'.repeat(MAX_DOCUMENT_ID_CHARS)}`)).toMatch(/^its id has \d+ characters/);
  });
});
