console.log("bench")
