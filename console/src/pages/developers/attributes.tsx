/**
 * Workspace settings → Developers → Attributes: the typed fields of leads, conversations and tickets in the mode the
 * console is in (what `/v1/attribute-definitions` lists to a key of that mode). A builder defines one here, sees every
 * definition with its rule, and archives one: it then checks nothing, and the values stay.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api } from "../../api/client.ts";
import { describeError, fieldErrors, unwrap } from "../../api/errors.ts";
import { type AttributeDefinition, attributeDefinitionsQuery, queryKeys } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { Field } from "../../components/field.tsx";
import { EmptyState, ErrorState, Loading, Notice } from "../../components/states.tsx";
import { ATTRIBUTE_OBJECTS, ATTRIBUTE_TYPES } from "../../generated/enums.ts";
import { useMode } from "../../session/mode.ts";
import { useCsrfHeader } from "../../session/session.ts";

type AttributeObject = (typeof ATTRIBUTE_OBJECTS)[number];
type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

const WITH_OPTIONS: ReadonlySet<AttributeType> = new Set(["enum", "multi_enum"]);

/** The form's options text as the contract's list: one per comma, trimmed, empty ones dropped. */
function optionsOf(text: string): string[] {
  return text
    .split(",")
    .map((option) => option.trim())
    .filter((option) => option !== "");
}

function DefineForm() {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const typeId = useId();
  const objectId = useId();
  const [objectType, setObjectType] = useState<AttributeObject>("lead");
  const [key, setKey] = useState("");
  const [label, setLabel] = useState("");
  const [type, setType] = useState<AttributeType>("string");
  const [options, setOptions] = useState("");
  const [required, setRequired] = useState(false);
  const [unique, setUnique] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/workspace/attribute-definitions", {
          params: { header: csrf },
          body: {
            object_type: objectType,
            key: key.trim(),
            label: label.trim(),
            type,
            ...(WITH_OPTIONS.has(type) ? { options: optionsOf(options) } : {}),
            required,
            unique,
          },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.attributeDefinitions });
      setKey("");
      setLabel("");
      setOptions("");
      setRequired(false);
      setUnique(false);
    },
  });
  const errors = fieldErrors(create.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Define an attribute">
      <h2>Define an attribute</h2>
      <div className="field">
        <label htmlFor={objectId}>Object</label>
        <select
          id={objectId}
          value={objectType}
          onChange={(event) => setObjectType(event.target.value as AttributeObject)}
        >
          {ATTRIBUTE_OBJECTS.map((object) => (
            <option key={object} value={object}>
              {object}
            </option>
          ))}
        </select>
      </div>
      <Field
        label="Key"
        hint="The key in custom_attributes: lowercase letters, digits and _, starting with a letter. It never changes."
        error={errors.get("key")}
        value={key}
        onChange={(event) => setKey(event.target.value)}
      />
      <Field
        label="Label"
        error={errors.get("label")}
        value={label}
        onChange={(event) => setLabel(event.target.value)}
      />
      <div className="field">
        <label htmlFor={typeId}>Type</label>
        <select id={typeId} value={type} onChange={(event) => setType(event.target.value as AttributeType)}>
          {ATTRIBUTE_TYPES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {WITH_OPTIONS.has(type) ? (
        <Field
          label="Options"
          hint="Separated by commas: free, pro, enterprise."
          error={errors.get("options")}
          value={options}
          onChange={(event) => setOptions(event.target.value)}
        />
      ) : null}
      <div className="field">
        <label>
          <input type="checkbox" checked={required} onChange={(event) => setRequired(event.target.checked)} /> Required:
          every object must have a value
        </label>
        <label>
          <input type="checkbox" checked={unique} onChange={(event) => setUnique(event.target.checked)} /> Unique: no
          two objects may share a value
        </label>
        {errors.get("unique") ? <p className="field-error">{errors.get("unique")}</p> : null}
      </div>
      {create.error ? <Notice tone="error">{describeError(create.error)}</Notice> : null}
      {create.isSuccess ? <Notice tone="success">Attribute “{create.data.key}” is defined.</Notice> : null}
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        Define attribute
      </button>
    </form>
  );
}

function ArchiveButton({ definition }: { definition: AttributeDefinition }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const archive = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/workspace/attribute-definitions/{attribute_definition_id}/archive", {
          params: { header: csrf, path: { attribute_definition_id: definition.id } },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.attributeDefinitions }),
  });
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={archive.isPending}
        aria-label={`Archive ${definition.object_type} attribute ${definition.key}`}
        onClick={() => archive.mutate()}
      >
        Archive
      </button>
      {archive.error ? <Notice tone="error">{describeError(archive.error)}</Notice> : null}
    </>
  );
}

export function AttributesPage() {
  const definitions = useQuery(attributeDefinitionsQuery);
  const mode = useMode();
  return (
    <AppLayout title="Attributes">
      <p className="lead">
        Typed fields of {mode === "test" ? "test mode's" : "the workspace's live"} leads, conversations and tickets: a
        write of <code>custom_attributes.&lt;key&gt;</code> must fit its definition. Keys without one take any value.
      </p>
      {definitions.isPending ? <Loading label="Loading attributes…" /> : null}
      {definitions.error ? <ErrorState error={definitions.error} onRetry={() => void definitions.refetch()} /> : null}
      {definitions.data && definitions.data.data.length === 0 ? (
        <EmptyState title="No attributes yet">
          <p>Define one below; objects that already hold values under its key must fit it.</p>
        </EmptyState>
      ) : null}
      {definitions.data && definitions.data.data.length > 0 ? (
        <table className="table">
          <caption className="visually-hidden">Attribute definitions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Attribute</th>
              <th scope="col">Object</th>
              <th scope="col">Type</th>
              <th scope="col">Rule</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {definitions.data.data.map((definition) => (
              <tr key={definition.id}>
                <th scope="row" data-label="Attribute">
                  {definition.label}
                  <span className="muted block mono">{definition.key}</span>
                </th>
                <td data-label="Object">{definition.object_type}</td>
                <td data-label="Type">
                  {definition.type}
                  {definition.options.length > 0 ? (
                    <span className="muted block">{definition.options.join(", ")}</span>
                  ) : null}
                </td>
                <td data-label="Rule">
                  {[definition.required ? "required" : "", definition.unique ? "unique" : ""]
                    .filter(Boolean)
                    .join(", ") || "—"}
                </td>
                <td data-label="Actions">
                  <ArchiveButton definition={definition} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <DefineForm />
    </AppLayout>
  );
}
