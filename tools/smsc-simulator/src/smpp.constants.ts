/** SMPP 3.4 numbers the simulator speaks (section 5 of the specification). */

export const CommandId = {
  generic_nack: 0x80000000,
  bind_receiver: 0x00000001,
  bind_receiver_resp: 0x80000001,
  bind_transmitter: 0x00000002,
  bind_transmitter_resp: 0x80000002,
  submit_sm: 0x00000004,
  submit_sm_resp: 0x80000004,
  deliver_sm: 0x00000005,
  deliver_sm_resp: 0x80000005,
  unbind: 0x00000006,
  unbind_resp: 0x80000006,
  bind_transceiver: 0x00000009,
  bind_transceiver_resp: 0x80000009,
  enquire_link: 0x00000015,
  enquire_link_resp: 0x80000015,
} as const;

export type CommandName = keyof typeof CommandId;

export const commandNameById: ReadonlyMap<number, CommandName> = new Map(
  (Object.entries(CommandId) as [CommandName, number][]).map(([name, id]) => [id, name]),
);

export const CommandStatus = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDLEN: 0x02,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RALYBND: 0x05,
  ESME_RSYSERR: 0x08,
  ESME_RINVDSTADR: 0x0b,
  ESME_RBINDFAIL: 0x0d,
  ESME_RMSGQFUL: 0x14,
  ESME_RTHROTTLED: 0x58,
  ESME_RX_T_APPN: 0x64,
  ESME_RINVTLVSTREAM: 0xc0,
} as const;

export const TlvTag = {
  receipted_message_id: 0x001e,
  sar_msg_ref_num: 0x020c,
  sar_total_segments: 0x020e,
  sar_segment_seqnum: 0x020f,
  sc_interface_version: 0x0210,
  message_payload: 0x0424,
  message_state: 0x0427,
} as const;

export const EsmClass = {
  deliveryReceipt: 0x04,
  udhIndicator: 0x40,
} as const;

export const DataCoding = {
  gsm7: 0x00,
  ascii: 0x01,
  octetUnspecified: 0x02,
  latin1: 0x03,
  binary: 0x04,
  ucs2: 0x08,
} as const;

export const SMPP_VERSION_34 = 0x34;
export const PDU_HEADER_LENGTH = 16;
/** Far above any legal PDU (message_payload tops out near 64 KB), low enough to stop garbage early. */
export const MAX_PDU_LENGTH = 70_000;
