// Text from records, git (commit subjects, branch names) and result files, printed to a
// terminal: control characters could move the cursor, rewrite earlier lines, set the
// window title or hide text (ESC sequences), and bidirectional controls can make a line
// read other than it is. They are shown as escapes instead.

/** C0 controls but tab and newline, DEL, C1 controls, and bidirectional controls. */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with each unprintable character as `\xHH` or `\uHHHH`; tabs and newlines kept. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Bidirectional controls only (Trojan Source), for text published as markdown. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with each bidirectional control shown as `<U+HHHH>` (readable, inert). */
export function withoutBidiControls(text: string): string {
  return text.replace(
    BIDI_CONTROLS,
    (char) => `⟨U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}
