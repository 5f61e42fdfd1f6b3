// Experiments: the list (#/experiments), one experiment (#/experiments/{id}: its variants and
// the strings each overrides, start and stop, the results, shipping a variant, the document as
// JSON) and a new one (#/experiments/new). Each view is a module of its own (experiments-*.js);
// this one only picks it.

import { mountCreate } from "./experiments-create.js";
import { mountDetail } from "./experiments-detail.js";
import { mountList } from "./experiments-list.js";

export function mount(main, { id }, context) {
  if (id === "new") return mountCreate(main, context);
  return id ? mountDetail(main, id, context) : mountList(main, context);
}
