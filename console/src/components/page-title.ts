/**
 * The document title of a page, and focus on its heading after an in-app navigation, so that a screen reader
 * announces the new page (the first load keeps the browser's own focus).
 */
import { useEffect, useRef } from "react";

let firstPage = true;

export function usePageHeading(title: string) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Service Platform`;
    if (firstPage) firstPage = false;
    else heading.current?.focus();
  }, [title]);
  return heading;
}
