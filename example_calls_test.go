package telco_test

import (
	"context"
	"fmt"
	"log"

	"github.com/telcosdk/telco"
	"github.com/telcosdk/telco/telcotest"
)

// A CallFeed keeps the service's Token between requests, so each Next
// brings only the calls written since the previous answer. Save
// feed.Token() to resume in another process.
func ExampleCallFeed() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	srv.AddCall(srv.PropertySid, telco.Call{From: "+61412345001", Disposition: telco.CallAnswered})
	srv.AddCall(srv.PropertySid, telco.Call{From: "+61412345002", Disposition: telco.CallNoAnswer})

	feed := telco.NewCallFeed(client.Calls.ListByProperty, srv.PropertySid, nil)
	calls, err := feed.Next(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("first answer:", len(calls), "calls")

	srv.AddCall(srv.PropertySid, telco.Call{From: "+61412345003", Disposition: telco.CallBusy})
	calls, err = feed.Next(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range calls {
		fmt.Println("new:", c.From, c.Disposition)
	}
	// Output:
	// first answer: 2 calls
	// new: +61412345003 Busy
}

// Route a number to a flow: list the project's flows to find the
// ConfigID, then configure the number with it.
func ExampleFlowsService_ListAll() {
	srv := telcotest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	srv.AddNumber(srv.PropertySid, "+61299990000")
	srv.AddFlow(srv.PropertySid, telco.Flow{Name: "Sales", Type: "IVR"})

	var sales string
	for f, err := range client.Flows.ListAll(ctx, srv.PropertySid, nil) {
		if err != nil {
			log.Fatal(err)
		}
		if f.Name == "Sales" {
			sales = f.ConfigID
		}
	}
	cfg, err := client.Numbers.Configure(ctx, "+61299990000", &telco.NumberConfigParams{
		RoutingMethod: telco.RoutingFlow, Flow: sales})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.RoutingMethod, cfg.Flow == sales)
	// Output: Flow true
}
