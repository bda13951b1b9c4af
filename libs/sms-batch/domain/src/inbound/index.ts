export type { InboundEncoding } from './inbound-text';
export type { Concatenation, ConcatenationScheme } from './user-data-header';
export { isDeliveryReceipt, parseInboundPdu, type InboundPart, type InboundPdu, type InboundPduOptions } from './inbound-pdu';
export { INBOUND_PART_MAX_WAIT_MS, isComplete, joinParts, siblingKey, type InboundMessage } from './inbound-parts';
export { keywordOf, type InboundKeyword } from './inbound-keyword';
export { inboundPduFromSmppFields } from './smpp-library-fields';
