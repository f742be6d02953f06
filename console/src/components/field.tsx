/** A labelled text input with its hint and its error, wired for screen readers. */
import { type InputHTMLAttributes, type Ref, useId } from "react";

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  /** The input itself, to move focus to it when a form names what is missing. */
  ref?: Ref<HTMLInputElement>;
  label: string;
  hint?: string;
  error?: string | undefined;
}

export function Field({ label, hint, error, className, ...input }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div className={`field ${className ?? ""}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={described || undefined} {...input} />
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The e-mail address of the sign-in, sign-up and e-mail request forms. */
export function EmailField({ value, onChange }: { value: string; onChange: (email: string) => void }) {
  return (
    <Field
      label="E-mail"
      type="email"
      autoComplete="email"
      required
      value={value}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
