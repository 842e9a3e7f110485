/**
 * CodeMirror 6 for the console's JSON views, loaded only by pages that show one (code-editor.tsx
 * imports this module lazily). JSON syntax, the spec's schema as lint markers at the failing field,
 * undo history and bracket matching. Tab is left to the browser (no indent-with-Tab binding), so
 * keyboard users leave the editor the usual way.
 *
 * CSP: CodeMirror writes its styles in a <style> element, which the console's CSP allows only with
 * the nonce gw puts in index.html's policy and its <meta name="gw-style-nonce"> (server/console.ts).
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, foldGutter, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { linter, lintGutter, lintKeymap } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import type { ValidateFunction } from 'ajv';
import { jsonDiagnostics } from './json-lint';

export interface EditorOptions {
  doc: string;
  labelledBy: string;
  describedBy?: string;
  readOnly?: boolean;
  validate?: ValidateFunction;
  wrapKey?: string;
  onChange: (text: string) => void;
}

export interface MountedEditor {
  setDoc: (text: string) => void;
  destroy: () => void;
}

export function mountEditor(parent: HTMLElement, options: EditorOptions): MountedEditor {
  const { validate } = options;
  let fromOutside = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        foldGutter(),
        history(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        json(),
        ...(validate ? [linter((v) => jsonDiagnostics(v.state.doc.toString(), validate, options.wrapKey), { delay: 300 }), lintGutter()] : []),
        keymap.of([...defaultKeymap, ...historyKeymap, ...lintKeymap]),
        EditorView.cspNonce.of(document.querySelector('meta[name="gw-style-nonce"]')?.getAttribute('content') ?? ''),
        EditorState.readOnly.of(Boolean(options.readOnly)),
        EditorView.contentAttributes.of({ 'aria-labelledby': options.labelledBy, 'aria-multiline': 'true', ...(options.describedBy ? { 'aria-describedby': options.describedBy } : {}) }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !fromOutside) options.onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    // A change from outside (the form) replaces the text without calling onChange back.
    setDoc: (text) => {
      if (text === view.state.doc.toString()) return;
      fromOutside = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      } finally {
        fromOutside = false;
      }
    },
    destroy: () => view.destroy(),
  };
}
