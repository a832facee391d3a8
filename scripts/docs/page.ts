/** A generated page of docs/: where it goes, relative to the repository, and what it holds. */
export interface DocPage {
  path: string;
  render(): string;
}
