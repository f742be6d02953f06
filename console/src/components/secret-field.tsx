/** A secret shown once (a new API key, a signing secret): read-only, with Copy and a warning. */
import { useId, useRef, useState } from "react";

export function SecretField({ label, value, warning }: { label: string; value: string; warning: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "no" | undefined>(undefined);

  async function copy() {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      // No clipboard permission (an http:// origin other than localhost): the text is selected for Ctrl+C.
      setCopied("no");
    }
  }

  return (
    <div className="secret">
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input
          id={id}
          ref={input}
          readOnly
          value={value}
          className="mono"
          spellCheck={false}
          aria-describedby={`${id}-warning`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" className="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p id={`${id}-warning`} className="secret-warning">
        {warning}
      </p>
      <p className="secret-copied" role="status">
        {copied === "yes" ? "Copied to the clipboard." : copied === "no" ? "Selected: press Ctrl+C (⌘C) to copy." : ""}
      </p>
    </div>
  );
}
