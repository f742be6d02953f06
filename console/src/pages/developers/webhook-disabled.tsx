/** Why a disabled endpoint gets nothing, in words, and since when. */
import type { Webhook } from "../../api/queries.ts";
import { Notice } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";

type DisabledReason = NonNullable<Webhook["disabled_reason"]>;

/** Each reason the contract names (`WebhookDisabledReason`), as the end of "… because …". */
const BECAUSE: Record<DisabledReason, string> = {
  manual: "someone in this workspace disabled it",
  endpoint_gone: "it answered 410 Gone, which asks senders to stop for good",
  failing: "every delivery to it failed for 5 days",
};

export function DisabledNotice({ webhook }: { webhook: Webhook }) {
  if (webhook.enabled) return null;
  const since = webhook.disabled_at ? (
    <>
      {" "}
      since <time dateTime={webhook.disabled_at}>{formatDateTime(webhook.disabled_at)}</time>
    </>
  ) : null;
  return (
    <Notice tone="warning">
      <p>
        <strong>Disabled{since}</strong> because {BECAUSE[webhook.disabled_reason ?? "manual"]}.
      </p>
      <p className="notice-last">
        No events are sent to it until it is enabled. Once it works again, enable it: you can then send what it missed
        while it was disabled.
      </p>
    </Notice>
  );
}
