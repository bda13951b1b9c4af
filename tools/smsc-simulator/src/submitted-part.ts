import { readUserData } from './concatenation';
import type { IncomingPart } from './message-store';
import type { ShortMessagePdu } from './smpp-pdu.types';

/** A submit_sm accepted as the message store keeps it: its envelope, user data and id. */
export function submittedPart(pdu: ShortMessagePdu, systemId: string, messageId: string, receivedAt: Date): IncomingPart {
  const userData = readUserData(pdu.esmClass, pdu.shortMessage, pdu.tlvs);
  return {
    envelope: {
      systemId, serviceType: pdu.serviceType,
      source: pdu.sourceAddr, sourceTon: pdu.sourceAddrTon, sourceNpi: pdu.sourceAddrNpi,
      destination: pdu.destinationAddr, destTon: pdu.destAddrTon, destNpi: pdu.destAddrNpi,
      dataCoding: pdu.dataCoding, esmClass: pdu.esmClass, registeredDelivery: pdu.registeredDelivery,
    },
    messageId,
    payload: userData.payload,
    concatenation: userData.concatenation,
    receivedAt,
  };
}
