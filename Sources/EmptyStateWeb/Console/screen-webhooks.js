// Webhooks: the subscriptions and a form for a new one (#/webhooks), and one webhook
// (#/webhooks/{id}: enable or disable, ping, delete, its delivery log with every attempt and a
// redeliver button). Each view is a module of its own (webhooks-*.js); this one picks it.

import { mountDetail } from "./webhooks-detail.js";
import { mountList } from "./webhooks-list.js";

export function mount(main, { id }, context) {
  return id ? mountDetail(main, id, context) : mountList(main, context);
}
