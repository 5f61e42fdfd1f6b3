// Change requests: the list (#/changes, open ones first; a filter for the others) and one request
// (#/changes/{id}: its diff against live, reviews, approvals against the rule, schedule and the
// steps its state allows). Each view is a module of its own (changes-*.js); this one picks it.

import { mountDetail } from "./changes-detail.js";
import { mountList } from "./changes-list.js";

export function mount(main, { id, query }, context) {
  return id ? mountDetail(main, id, context) : mountList(main, query, context);
}
