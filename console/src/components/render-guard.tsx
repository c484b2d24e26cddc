import { Component, type ComponentChildren } from 'preact';

/**
 * Keeps a part of a page that draws an API answer from taking the page down:
 * an answer the console cannot draw (a shape newer than it) shows as a note
 * in its place, and the rest of the page keeps working. Give it a `key` that
 * changes with the answer, so a new answer is drawn afresh.
 */
export class RenderGuard extends Component<{ what: string; children: ComponentChildren }, { error: Error | null }> {
  override state = { error: null as Error | null };

  static override getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (this.state.error) {
      return (
        <p class="error" role="alert" data-testid="render-error">
          Could not draw {this.props.what}: {this.state.error.message}
        </p>
      );
    }
    return this.props.children;
  }
}
