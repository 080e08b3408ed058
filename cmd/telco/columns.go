package main

import (
	"strconv"
	"strings"

	"github.com/telcosdk/telco"
)

// Table columns per resource. Lists show the first columns; a single
// resource shows every one, one per line.

var propertyCols = []column[telco.Property]{
	{"PROPERTY SID", func(p *telco.Property) string { return p.PropertySid }},
	{"NAME", func(p *telco.Property) string { return p.Name }},
	{"DOMAIN", func(p *telco.Property) string { return p.MainDomain }},
	{"TIME ZONE", func(p *telco.Property) string { return p.TimeZone }},
	{"SMS", func(p *telco.Property) string { return yesNo(p.SmsEnabled) }},
	{"RECORDING", func(p *telco.Property) string { return yesNo(p.CallRecordingEnabled) }},
	{"INTEGRATIONS", func(p *telco.Property) string { return yesNo(p.IntegrationsEnabled) }},
	{"ACTIVE", func(p *telco.Property) string { return yesNo(p.Active) }},
}

var numberConfigCols = []column[telco.NumberConfig]{
	{"NUMBER", func(n *telco.NumberConfig) string { return n.Number }},
	{"PROPERTY SID", func(n *telco.NumberConfig) string { return n.PropertySid }},
	{"FRIENDLY", func(n *telco.NumberConfig) string { return n.Friendly }},
	{"ADDRESS SID", func(n *telco.NumberConfig) string { return n.AddressSid }},
	{"ATTRIBUTION SOURCE", func(n *telco.NumberConfig) string { return n.AttributionSource }},
	{"ATTRIBUTION MEDIUM", func(n *telco.NumberConfig) string { return n.AttributionMedium }},
	{"ATTRIBUTION CAMPAIGN", func(n *telco.NumberConfig) string { return n.AttributionCampaign }},
	{"ATTRIBUTION CONTENT", func(n *telco.NumberConfig) string { return n.AttributionContent }},
	{"ROUTING", func(n *telco.NumberConfig) string { return string(n.RoutingMethod) }},
	{"ENDPOINT", func(n *telco.NumberConfig) string { return n.EndpointNumber }},
	{"FLOW", func(n *telco.NumberConfig) string { return n.Flow }},
	{"RECORDING", func(n *telco.NumberConfig) string { return string(n.Recording) }},
	{"FORWARD SMS FROM", func(n *telco.NumberConfig) string { return n.SendSmsFrom }},
	{"FORWARD SMS TO", func(n *telco.NumberConfig) string { return n.SendSmsTo }},
	{"FORWARD EMAIL FROM", func(n *telco.NumberConfig) string { return n.SendEmailFrom }},
	{"FORWARD EMAIL TO", func(n *telco.NumberConfig) string { return n.SendEmailTo }},
	{"SMS WEBHOOK URL", func(n *telco.NumberConfig) string { return n.WebhookURL }},
	{"SMS WEBHOOK METHOD", func(n *telco.NumberConfig) string { return n.WebhookMethod }},
	{"RECEIPT WEBHOOK URL", func(n *telco.NumberConfig) string { return n.DeliveryReceiptWebhookURL }},
	{"RECEIPT WEBHOOK METHOD", func(n *telco.NumberConfig) string { return n.DeliveryReceiptWebhookMethod }},
}

var numberBlockCols = []column[telco.NumberBlock]{
	{"ID", func(b *telco.NumberBlock) string { return itoa(b.ID) }},
	{"NUMBER BLOCK SID", func(b *telco.NumberBlock) string { return b.NumberBlockSid }},
	{"NUMBER", func(b *telco.NumberBlock) string { return firstNonEmpty(b.NumberPattern, b.Number) }},
	{"NAME", func(b *telco.NumberBlock) string { return firstNonEmpty(b.FriendlyName, b.Name) }},
	{"SIZE", func(b *telco.NumberBlock) string { return itoa(b.BlockSize) }},
	{"ACTIVE", func(b *telco.NumberBlock) string { return yesNo(b.Active) }},
	{"VOICE", func(b *telco.NumberBlock) string { return yesNo(b.SupportsVoice) }},
	{"SMS", func(b *telco.NumberBlock) string { return yesNo(b.SupportsSms) }},
	{"CREATED", func(b *telco.NumberBlock) string {
		if b.Created.IsZero() {
			return ""
		}
		return b.Created.Format("2006-01-02T15:04:05-07:00")
	}},
}

// messageCols are a message's list columns; messageFields add the rest.
var messageCols = []column[telco.Message]{
	{"MESSAGE SID", func(m *telco.Message) string { return m.MessageSid }},
	{"DIRECTION", func(m *telco.Message) string { return string(m.Direction) }},
	{"FROM", func(m *telco.Message) string { return m.From }},
	{"TO", func(m *telco.Message) string { return m.To }},
	{"STATUS", func(m *telco.Message) string { return string(m.Status) }},
	{"SEGMENTS", func(m *telco.Message) string { return itoa(m.NumSegments) }},
	{"CREATED", func(m *telco.Message) string { return ts(m.Created) }},
	{"EXTERNAL ID", func(m *telco.Message) string { return m.ExternalID }},
	{"TEXT", func(m *telco.Message) string { return m.Text }},
}

var messageFields = append(append([]column[telco.Message]{}, messageCols...),
	column[telco.Message]{"PROPERTY SID", func(m *telco.Message) string { return m.PropertySid }},
	column[telco.Message]{"DELIVERY RECEIPT", func(m *telco.Message) string { return yesNo(m.DeliveryReceipt) }},
	column[telco.Message]{"SCHEDULED", func(m *telco.Message) string { return ts(m.Scheduled) }},
	column[telco.Message]{"SUBMITTED", func(m *telco.Message) string { return ts(m.Submitted) }},
	column[telco.Message]{"DELIVERED", func(m *telco.Message) string { return ts(m.Delivered) }},
	column[telco.Message]{"RECEIVED", func(m *telco.Message) string { return ts(m.Received) }},
	column[telco.Message]{"ERROR CODE", func(m *telco.Message) string { return m.ErrorCode }},
)

var loginCols = []column[telco.OnlineLogin]{
	{"ONLINE LOGIN SID", func(l *telco.OnlineLogin) string { return l.OnlineLoginSid }},
	{"EMAIL", func(l *telco.OnlineLogin) string { return l.Email }},
	{"NAME", func(l *telco.OnlineLogin) string { return strings.TrimSpace(l.FirstName + " " + l.LastName) }},
	{"ENABLED", func(l *telco.OnlineLogin) string { return yesNo(l.Enabled) }},
	{"CREATED", func(l *telco.OnlineLogin) string { return ts(l.Created) }},
	{"PERMISSIONS", func(l *telco.OnlineLogin) string {
		parts := make([]string, 0, len(l.Permissions))
		for _, p := range l.Permissions {
			parts = append(parts, firstNonEmpty(p.PropertySid, p.AccountSid)+":"+p.Scopes.String())
		}
		return strings.Join(parts, " ")
	}},
}

var sipTrunkCols = []column[telco.SipTrunk]{
	{"SIP TRUNK SID", func(s *telco.SipTrunk) string { return s.SipTrunkSid }},
	{"NAME", func(s *telco.SipTrunk) string { return s.Name }},
	{"TYPE", func(s *telco.SipTrunk) string { return s.Type.String() }},
	{"CALLER ID", func(s *telco.SipTrunk) string { return s.DefaultCallerID }},
	{"CHANNELS", func(s *telco.SipTrunk) string { return itoa(s.ChannelLimit) }},
	{"STATE", func(s *telco.SipTrunk) string { return s.ProvisioningState.String() }},
	{"REFERENCE", func(s *telco.SipTrunk) string { return s.CustomerReference }},
	{"CREATED", func(s *telco.SipTrunk) string { return ts(s.Created) }},
}

var sipTrunkFields = append(append([]column[telco.SipTrunk]{}, sipTrunkCols...),
	column[telco.SipTrunk]{"IP ADDRESSES", func(s *telco.SipTrunk) string {
		var out []string
		for _, a := range s.SipTrunkIPAddresses {
			out = append(out, a.IPAddress)
		}
		return strings.Join(out, " ")
	}},
	column[telco.SipTrunk]{"REALM", func(s *telco.SipTrunk) string {
		if s.SipTrunkCredentials == nil {
			return ""
		}
		return s.SipTrunkCredentials.Realm
	}},
	column[telco.SipTrunk]{"COUNTRIES", func(s *telco.SipTrunk) string {
		var out []string
		for _, c := range s.SipTrunkAllowedCountries {
			out = append(out, c.CountryCode)
		}
		return strings.Join(out, " ")
	}},
	column[telco.SipTrunk]{"NUMBER RANGES", func(s *telco.SipTrunk) string {
		var out []string
		for _, r := range s.SipTrunkNumberRanges {
			out = append(out, r.StartNumber+"+"+itoa(r.Length))
		}
		return strings.Join(out, " ")
	}},
)

var portingCols = []column[telco.PortingRequest]{
	{"PORTING NO", func(p *telco.PortingRequest) string { return p.PortingNo }},
	{"STATUS", func(p *telco.PortingRequest) string { return p.Status }},
	{"SCHEDULE", func(p *telco.PortingRequest) string { return string(p.PreferredPortSchedule) }},
	{"CARRIER", func(p *telco.PortingRequest) string { return p.CurrentCarrier }},
	{"CONTACT", func(p *telco.PortingRequest) string { return p.AuthorisedContactName }},
	{"NUMBERS", func(p *telco.PortingRequest) string {
		out := make([]string, 0, len(p.PortingNumbers))
		for _, n := range p.PortingNumbers {
			out = append(out, n.Number)
		}
		return strings.Join(out, " ")
	}},
	{"CREATED", func(p *telco.PortingRequest) string { return ts(p.Created) }},
}

var addressCols = []column[telco.Address]{
	{"ADDRESS SID", func(a *telco.Address) string { return a.AddressSid }},
	{"FRIENDLY", func(a *telco.Address) string { return a.Friendly }},
	{"REFERENCE", func(a *telco.Address) string { return a.Reference }},
	{"LINE 1", func(a *telco.Address) string { return a.Line1 }},
	{"LINE 2", func(a *telco.Address) string { return a.Line2 }},
	{"CITY", func(a *telco.Address) string { return a.City }},
	{"REGION", func(a *telco.Address) string { return a.Region }},
	{"POSTAL CODE", func(a *telco.Address) string { return a.PostalCode }},
	{"COUNTRY", func(a *telco.Address) string { return a.CountryCode }},
	{"STATUS", func(a *telco.Address) string { return a.Status }},
}

var numberDetailCols = []column[telco.NumberDetail]{
	{"NUMBER", func(d *telco.NumberDetail) string { return "+" + strconv.FormatInt(d.E164, 10) }},
	{"ASSIGNED CARRIER", func(d *telco.NumberDetail) string { return carrier(d.AssignedCarrier) }},
	{"CURRENT CARRIER", func(d *telco.NumberDetail) string { return carrier(d.CurrentCarrier) }},
	{"AREA", func(d *telco.NumberDetail) string { return d.NumberingArea }},
	{"PORTED", func(d *telco.NumberDetail) string { return d.PortedActionIndicator }},
	{"THIRD PARTY", func(d *telco.NumberDetail) string { return yesNo(d.ThirdParty) }},
	{"REASON", func(d *telco.NumberDetail) string { return d.Reason }},
}

func carrier(c telco.Carrier) string {
	if c.CAC < 0 && c.Name == "" {
		return "unknown"
	}
	return strings.TrimSpace(c.Name + " (" + itoa(c.CAC) + ")")
}
