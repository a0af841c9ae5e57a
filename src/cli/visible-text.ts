/**
 * Text bound for a terminal with its control characters shown as `\xHH` (line breaks and tabs
 * kept). Errors quote file names, file contents and what an MCP server sent; a name holding
 * ESC [2J, or a server's message holding an OSC sequence, must not clear the screen, set the
 * window title or recolour what follows.
 */
export function visibleText(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
