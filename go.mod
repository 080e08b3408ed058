module github.com/telcosdk/telco

go 1.23

require (
	github.com/google/go-querystring v1.2.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/jarcoal/httpmock v1.4.2
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/stretchr/testify v1.12.1
	go.etcd.io/bbolt v1.4.3
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.29.0
	software.sslmate.com/src/go-pkcs12 v0.7.4
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.11.0 // indirect
)
