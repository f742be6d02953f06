/**
 * A fieldset of checkboxes. Each box's accessible name is its value alone (`leads:read`, `lead.captured`), as the
 * contract writes it; the description in words is attached with aria-describedby.
 */
import { useId } from "react";

export function CheckboxGroup<T extends string>({
  legend,
  options,
  checked,
  onChange,
  describe,
}: {
  legend: string;
  options: readonly T[];
  checked: ReadonlySet<T>;
  onChange: (next: Set<T>) => void;
  describe?: (value: T) => string;
}) {
  const id = useId();
  function toggle(value: T, on: boolean) {
    const next = new Set(checked);
    if (on) next.add(value);
    else next.delete(value);
    onChange(next);
  }
  return (
    <fieldset className="checkboxes">
      <legend>{legend}</legend>
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
