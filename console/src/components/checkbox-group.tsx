/**
 * A fieldset of checkboxes. Each box's accessible name is its value alone (`leads:read`, `lead.captured`), as the
 * contract writes it; the description in words is attached with aria-describedby. An error (nothing chosen) is shown
 * under the legend and attached to the fieldset, as for a field.
 */
import { type Ref, useId } from "react";

export function CheckboxGroup<T extends string>({
  ref,
  legend,
  options,
  checked,
  onChange,
  describe,
  error,
}: {
  ref?: Ref<HTMLFieldSetElement>;
  legend: string;
  options: readonly T[];
  checked: ReadonlySet<T>;
  onChange: (next: Set<T>) => void;
  describe?: (value: T) => string;
  error?: string | undefined;
}) {
  const id = useId();
  function toggle(value: T, on: boolean) {
    const next = new Set(checked);
    if (on) next.add(value);
    else next.delete(value);
    onChange(next);
  }
  return (
    <fieldset ref={ref} className="checkboxes" aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
      {options.map((value) => {
        const inputId = `${id}-${value}`;
        return (
          <div key={value} className="checkbox">
            <input
              id={inputId}
              type="checkbox"
              checked={checked.has(value)}
              onChange={(event) => toggle(value, event.target.checked)}
              aria-describedby={describe ? `${inputId}-hint` : undefined}
            />
            <label htmlFor={inputId} className="mono">
              {value}
            </label>
            {describe ? (
              <span id={`${inputId}-hint`} className="checkbox-hint">
                {describe(value)}
              </span>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
