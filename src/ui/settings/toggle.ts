/**
 * A settings checkbox's change (issue 27, item 8): saved, or — when the save fails (storage
 * full, database unavailable) — the box is put back to the value that is still stored, and
 * the message says why and that nothing changed. The browser ticks the box before the save
 * is tried, and a one-way `checked` binding does not untick it when the stored value stays the same.
 */

/** Save `box.checked`; on failure restore `previous` on the box and return the message to show (null when saved). */
export async function saveCheckbox(box: { checked: boolean }, previous: boolean, save: (value: boolean) => Promise<unknown>): Promise<string | null> {
  const value = box.checked;
  try {
    await save(value);
    return null;
  } catch (e) {
    box.checked = previous;
    const why = e instanceof Error ? e.message : String(e);
    return `${why} The setting was not changed: it is still ${previous ? 'on' : 'off'}.`;
  }
}
