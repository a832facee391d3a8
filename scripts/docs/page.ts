/** A generated page of docs/: where it goes, relative to the repository, and what it holds. */
export interface DocPage {
  path: string;
  render(): string;
}

/** Text as one cell of a Markdown table: its pipes escaped. */
export function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}
