// Copyright neardup authors. Licensed under Apache-2.0.
//
// Class names of the <div> elements that hold a site's volatile slots
// (timestamp, execution time, counter, server, message id, version, own URL):
// each site writes its header slot and its footer slot with one of these, as
// real sites name such bars in their own ways. A slot's <div> holds no other
// <div>. Internal to apps/synth; its tests strip these elements to compare
// pages without their volatile text.
#ifndef NEARDUP_SYNTH_SLOTS_H_
#define NEARDUP_SYNTH_SLOTS_H_

namespace neardup::synth_internal {

inline constexpr const char* kVolatileSlotClasses[] = {"page-meta",    "site-meta", "render-info",
                                                       "footer-stats", "hdr-meta",  "srv-info",
                                                       "page-stamp",   "meta-bar"};

}  // namespace neardup::synth_internal

#endif  // NEARDUP_SYNTH_SLOTS_H_
